import Foundation
import TollgateAPI

/// `wait_for=apple_ads&timeout_ms=N` on profile and placement reads.
struct AttributionWait {
  let seconds: Double

  /// `timeout_ms` when `wait_for` comes without it.
  static let defaultMilliseconds = 5_000
  /// The most `timeout_ms` may ask for.
  static let maximumMilliseconds = 30_000

  /// nil when the request does not ask to wait; 400 for a malformed request to wait. The
  /// server may hold requests for less than asked (`cap`: `tollgate serve --max-wait-ms`).
  init?(_ request: Request, cap: Double = ProfileWaits.maximumSeconds) throws {
    // timeout_ms alone asks for nothing, but must still be a timeout.
    let timeout = try request.query["timeout_ms"].map { text -> Int in
      guard let value = Int(text), (0...Self.maximumMilliseconds).contains(value) else {
        throw DomainError(
          .badParameter, "timeout_ms is a whole number of milliseconds from 0 to \(Self.maximumMilliseconds).")
      }
      return value
    }
    guard let source = request.query["wait_for"] else { return nil }
    guard source == appleAdsSource else {
      throw DomainError(.badParameter, "wait_for supports apple_ads only.")
    }
    let milliseconds = timeout ?? Self.defaultMilliseconds
    seconds = min(Double(milliseconds) / 1000, cap, ProfileWaits.maximumSeconds)
  }
}

extension Endpoints {
  /// Tokens longer than this are not AdServices tokens.
  static let maxTokenLength = 8_192

  func addAttributionRoutes(to router: inout Router) {
    router.add(SDKRoute.appleAdsAttribution) { [self] request in
      let caller = try auth.caller(for: request, needs: .publicKey)
      let appId = caller.appId
      let body = try decode(AppleAdsTokenRequest.self, from: request)
      let token = try Self.validToken(body.token, path: "$.token")
      let profile = try existingProfile(appId: appId, id: request.parameter("profileId"))
      let id = profile.id
      // Applied is permanent: no need to ask Apple again.
      if profile.attribution.status[appleAdsSource] == .applied { return .json(Self.payload(profile)) }
      try enqueue(token, appId: appId, profileId: id, keyId: caller.keyId)
      let settled: @Sendable () -> Response? = { [self] in
        respond {
          let profile = try existingProfile(appId: appId, id: id)
          return Self.settled(profile.attribution.status[appleAdsSource]) ? .json(Self.payload(profile)) : nil
        }
      }
      return waits.wait(
        .init(appId: appId, profileId: id), seconds: attributionBudget, attempt: settled,
        timeUp: { [self] in
          respond {
            let profile = try existingProfile(appId: appId, id: id)
            if Self.settled(profile.attribution.status[appleAdsSource]) { return .json(Self.payload(profile)) }
            return .json(AttributionPendingResponse(profile: Self.payload(profile)), status: 202)
          }
        })
    }
  }

  /// The token as sent; 422 at `path` when it is empty or longer than `maxTokenLength`
  /// characters (Unicode scalars, as the API document's `maxLength` counts them). Anything else
  /// goes to Apple, whose answer (400: invalid) is final.
  static func validToken(_ token: String, path: String) throws -> String {
    guard (1...maxTokenLength).contains(token.unicodeScalars.count) else {
      throw DomainError.validation([.init(path: path, message: "a token is 1–\(maxTokenLength) characters")])
    }
    return token
  }

  /// Queues a token for the attribution worker: 429 beyond the per-key and per-profile
  /// limits (tokens spend the app's Apple quota), 503 when too many wait for Apple.
  func enqueue(_ token: String, appId: Int64, profileId: String, keyId: String) throws {
    // The profile first: a profile over its limit spends nothing of the key's.
    if let wait = limiter.take("tokens profile \(appId) \(profileId)", limits.tokensPerProfile) {
      throw Self.rateLimited(wait, "Too many attribution tokens for this profile")
    }
    if let wait = limiter.take("tokens key \(keyId)", limits.tokensPerKey) {
      throw Self.rateLimited(wait, "Too many attribution tokens through this key")
    }
    guard try store.attributionQueueDepth() < attribution.maxQueue else {
      throw DomainError(.attributionQueueFull, "Too many tokens are waiting for Apple; retry later.")
    }
    let (job, created) = try store.enqueueAttribution(
      appId: appId, profileId: profileId, token: token, tokenHash: Digest.sha256Hex(token), at: time.now())
    if created || job.status == .pending { attribution.kick() }
  }

  /// A token sent with `POST /v1/sdk/profiles`: queued without waiting for Apple (the
  /// first launch's placement request waits instead); returns the profile as it is now.
  func handOver(_ token: String?, caller: Authenticator.Caller, profile: ProfileRecord) throws -> ProfileRecord {
    guard let token, profile.attribution.status[appleAdsSource] != .applied else { return profile }
    let appId = caller.appId
    try enqueue(token, appId: appId, profileId: profile.id, keyId: caller.keyId)
    return try store.profile(appId: appId, id: profile.id) ?? profile
  }

  /// Whether waiting on this profile's Apple Ads attribution can end: it is applied, or
  /// its last token reached a final outcome.
  func attributionSettled(appId: Int64, id: String) throws -> Bool {
    Self.settled(try existingProfile(appId: appId, id: id).attribution.status[appleAdsSource])
  }

  static func settled(_ status: AttributionStatus?) -> Bool { status?.isFinal ?? false }

  /// Runs a handler body outside the router (long-poll answers), turning errors into JSON.
  func respond(_ body: () throws -> Response?) -> Response? {
    do {
      return try body()
    } catch {
      return errorResponse(error, context: "deferred answer")
    }
  }

  func respond(_ body: () throws -> Response) -> Response {
    respond { () throws -> Response? in try body() }!
  }
}
