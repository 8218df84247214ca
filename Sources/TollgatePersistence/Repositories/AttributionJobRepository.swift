import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Apple Ads tokens waiting for Apple, and their outcomes: a durable queue that survives restarts.
public protocol AttributionJobRepository: Sendable {
  /// Records each token for its profile unless the same token was recorded before, and marks
  /// the profile's `apple_ads` status pending unless already applied: all in one transaction,
  /// answered in the order given.
  func enqueueAttributions(_ tokens: [QueuedToken]) throws -> [(AttributionJob, created: Bool)]

  /// Takes up to `limit` due pending jobs and pushes their next attempt `lease` seconds
  /// ahead, so a crashed worker's jobs come back and two workers never take the same job.
  func claimAttributionJobs(now: Date, lease: TimeInterval, limit: Int) throws -> [AttributionJob]

  /// How many `finishAttributions` transactions are worth running at once: one where the
  /// database writes one transaction at a time, more where writers of different rows proceed
  /// side by side.
  var outcomeWriters: Int { get }

  /// Stores the worker's decisions in one transaction, the profiles locked in key order. The
  /// transition of a pending job to a final status writes, in the same transaction, what its
  /// `settle` makes of the profile (its new version, an Apple Ads install, webhook events for
  /// `webhooks` of its app); the rollups of all of them are written once, before the commit.
  /// Returns each changed profile with its job, in key order.
  func finishAttributions(_ finishes: [AttributionFinish], at: Date, webhooks: (Int64) -> [WebhookConfig]) throws
    -> [(job: AttributionJob, profile: ProfileRecord)]

  /// Pending jobs.
  func attributionQueueDepth() throws -> Int

  /// The app's attribution tokens by outcome.
  func attributionFunnel(appId: Int64) throws -> AttributionFunnel
}

/// A token on its way into the queue.
public struct QueuedToken: Sendable, Hashable {
  /// The app.
  public var appId: Int64
  /// The profile it was sent for.
  public var profileId: String
  /// The token as sent.
  public var token: String
  /// Its SHA-256, hex: the same token twice is one job.
  public var tokenHash: String
  /// When it arrived.
  public var at: Date

  /// A token; `tokenHash` is the SHA-256 of `token`, hex.
  public init(appId: Int64, profileId: String, token: String, tokenHash: String, at: Date) {
    self.appId = appId
    self.profileId = profileId
    self.token = token
    self.tokenHash = tokenHash
    self.at = at
  }
}

/// A worker's decision about one job, for `AttributionJobRepository.finishAttributions`.
public struct AttributionFinish: Sendable {
  /// The job.
  public var job: AttributionJob
  /// What the worker decided.
  public var outcome: AttributionOutcome
  /// What a final outcome makes of the profile as stored (nil: nothing changes).
  public var settle: @Sendable (ProfileRecord) -> AttributionSettlement?

  /// A decision about `job`.
  public init(
    _ job: AttributionJob, _ outcome: AttributionOutcome,
    settle: @escaping @Sendable (ProfileRecord) -> AttributionSettlement?
  ) {
    self.job = job
    self.outcome = outcome
    self.settle = settle
  }
}

extension AttributionJobRepository {
  /// One decision: `finishAttributions` with a batch of one. Returns the profile when it changed.
  public func finishAttribution(
    _ job: AttributionJob, _ outcome: AttributionOutcome, at: Date, webhooks: [WebhookConfig],
    settle: @escaping @Sendable (ProfileRecord) -> AttributionSettlement?
  ) throws -> ProfileRecord? {
    try finishAttributions([AttributionFinish(job, outcome, settle: settle)], at: at, webhooks: { _ in webhooks })
      .first?.profile
  }

  /// One token: `enqueueAttributions` with a batch of one.
  public func enqueueAttribution(appId: Int64, profileId: String, token: String, tokenHash: String, at: Date) throws
    -> (AttributionJob, created: Bool)
  {
    let stored = try enqueueAttributions([
      QueuedToken(appId: appId, profileId: profileId, token: token, tokenHash: tokenHash, at: at)
    ])
    guard let first = stored.first else { throw StoreError.database("a batch of one stored nothing") }
    return first
  }
}
