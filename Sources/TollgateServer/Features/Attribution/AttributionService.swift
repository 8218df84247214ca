import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of Apple Ads tokens: taken as sent (1–8192 characters), limited per profile and
/// per public key (they spend the app's Apple quota), queued durably for the worker, and
/// never sent again once attribution is applied (applied is permanent).
final class AttributionService: Sendable {
  /// Tokens longer than this are not AdServices tokens.
  let profileRecords: any ProfileRepository
  let attributionJobs: any AttributionJobRepository
  let worker: AttributionWorker
  let limiter: RateLimiter
  let limits: ParsedRateLimits
  let time: any TimeSource
  /// Tokens of concurrent requests go into the queue in one transaction.
  let intake: AttributionIntake

  init(
    profileRecords: any ProfileRepository, attributionJobs: any AttributionJobRepository, worker: AttributionWorker,
    limiter: RateLimiter, limits: ParsedRateLimits,
    time: any TimeSource
  ) {
    self.profileRecords = profileRecords
    self.attributionJobs = attributionJobs
    self.worker = worker
    self.limiter = limiter
    self.limits = limits
    self.time = time
    intake = AttributionIntake { tokens in try attributionJobs.enqueueAttributions(tokens) }
  }

  /// Queues a token for the worker: 429 beyond the per-profile and per-key limits, 503 when
  /// too many wait for Apple. Nothing is queued for a profile whose attribution is applied.
  /// Returns whether the token was queued.
  @discardableResult
  func submit(_ token: String, appId: Int64, profile: ProfileRecord, keyId: String) throws -> Bool {
    guard let queued = try admit(token, appId: appId, profile: profile, keyId: keyId) else { return false }
    accepted(try intake.enqueue(queued))
    return true
  }

  /// `submit` without holding the caller's thread: `then` hears the token's job once it is
  /// committed — new, or the one the same token made before, perhaps long settled — or nil
  /// when nothing was queued (on the intake's queue: keep it short or hand the work on).
  func submit(
    _ token: String, appId: Int64, profile: ProfileRecord, keyId: String,
    then: @escaping @Sendable (Result<AttributionJob?, any Error>) -> Void
  ) {
    let queued: QueuedToken?
    do {
      queued = try admit(token, appId: appId, profile: profile, keyId: keyId)
    } catch {
      return then(.failure(error))
    }
    guard let queued else { return then(.success(nil)) }
    intake.enqueue(queued) { [self] result in
      then(
        result.map { stored in
          accepted(stored)
          return stored.0
        })
    }
  }

  /// Seconds a client refused for a full queue is told to wait (`Retry-After`): room comes back
  /// as the worker applies a few hundred tokens a second, and retries spread over that time
  /// instead of arriving at once. Apple's token stays good for 24 hours.
  static let queueFullRetryAfter = 30

  /// The checks before a token is queued; nil when attribution is applied already.
  private func admit(_ token: String, appId: Int64, profile: ProfileRecord, keyId: String) throws -> QueuedToken? {
    guard profile.attribution.status[appleAdsSource] != .applied else { return nil }
    // The profile first: a profile over its limit spends nothing of the key's.
    if let wait = limiter.take("tokens profile \(appId) \(profile.id)", limits.tokensPerProfile) {
      throw RateLimitGuard.rateLimited(wait, "Too many attribution tokens for this profile")
    }
    if let wait = limiter.take("tokens key \(keyId)", limits.tokensPerKey) {
      throw RateLimitGuard.rateLimited(wait, "Too many attribution tokens through this key")
    }
    guard try queueDepth() < worker.maxQueue else {
      throw DomainError(
        .attributionQueueFull, "Too many tokens are waiting for Apple; retry after \(Self.queueFullRetryAfter) s.",
        retryAfter: Self.queueFullRetryAfter)
    }
    return QueuedToken(
      appId: appId, profileId: profile.id, token: token, tokenHash: Digest.sha256Hex(token), at: time.now())
  }

  /// A token is stored: the worker is told, and the queue depth counts it.
  private func accepted(_ stored: (AttributionJob, created: Bool)) {
    let (job, created) = stored
    if created { depth.withLock { $0.added += 1 } }
    if created || job.status == .pending { worker.kick() }
  }

  /// The queue's depth as last counted (at most `depthAge` seconds ago) plus every token
  /// queued since: never below the truth, and one count per interval instead of per token.
  private let depth = Mutex<(at: Double?, counted: Int, added: Int)>((at: nil, counted: 0, added: 0))

  /// How long a count of the queue stands.
  static let depthAge = 0.1

  private func queueDepth() throws -> Int {
    let now = time.elapsedSeconds()
    if let known = depth.withLock({ depth -> Int? in
      guard let at = depth.at, now - at < Self.depthAge, now >= at else { return nil }
      return depth.counted + depth.added
    }) {
      return known
    }
    let counted = try attributionJobs.attributionQueueDepth()
    depth.withLock { $0 = (now, counted, 0) }
    return counted
  }

  /// A token sent with `POST /v1/sdk/profiles`: queued without waiting for Apple (the first
  /// launch's placement request waits instead); returns the profile as it is now.
  func handOver(_ token: String?, appId: Int64, profile: ProfileRecord, keyId: String) throws -> ProfileRecord {
    guard let token, try submit(token, appId: appId, profile: profile, keyId: keyId) else { return profile }
    return try profileRecords.profile(appId: appId, id: profile.id) ?? profile
  }
}

/// A token sent with a new profile reaches the attribution queue through here.
extension AttributionService: AttributionHandOver {}
