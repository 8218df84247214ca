import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST /v1/sdk/profiles/{profileId}/attribution/apple-ads`: the AdServices token. Answered
/// 200 with the profile once Apple's outcome is in within the request budget, else 202
/// `pending` (the worker goes on); with `Prefer: respond-async` (RFC 7240) 202 as soon as the
/// token is queued. Idempotent: the same token is one job.
struct AttributionController: Sendable {
  let auth: Authenticator
  let attribution: AttributionService
  let profiles: ProfileService
  let waits: ProfileWaits
  let errors: ErrorMapping
  /// How long the request waits for Apple before answering 202.
  let budget: TimeInterval

  func register(on router: inout Router) {
    router.add(SDKRoute.appleAdsAttribution) { request in
      let caller = try auth.caller(for: request, needs: .publicKey)
      let appId = caller.appId
      let body = try request.decodeJSON(AppleAdsTokenRequest.self)
      let token = try AppleAdsTokens.valid(body.token, path: "$.token")
      let profile = try profiles.existing(appId: appId, id: request.parameter("profileId"))
      let id = profile.id
      if Self.respondAsync(request.header("Prefer")) {
        // Answered once the token is committed; the connection waits without a thread, so
        // tokens arriving together share a transaction.
        let deferred = DeferredResponse()
        attribution.submit(token, appId: appId, profile: profile, keyId: caller.actor) { outcome in
          deferred.complete(
            errors.answer {
              // Applied is permanent: no need to ask Apple again.
              guard let job = try outcome.get() else { return .json(ProfilePayload(profile)) }
              guard job.status.isFinal else {
                // What the batch stored: the profile as read, now pending (no second read).
                var queued = profile
                queued.attribution.status[appleAdsSource] = .pending
                return .json(AttributionPendingResponse(profile: ProfilePayload(queued)), status: 202)
              }
              // The same token again, its outcome known and nothing queued: answered as the
              // waiting request's first look would be (the outcome was stored before this read).
              let now = try profiles.existing(appId: appId, id: id)
              if AppleAdsTokens.settled(now) { return .json(ProfilePayload(now)) }
              return .json(AttributionPendingResponse(profile: ProfilePayload(now)), status: 202)
            })
        }
        return .deferred(deferred)
      }
      // Applied is permanent: no need to ask Apple again.
      guard try attribution.submit(token, appId: appId, profile: profile, keyId: caller.actor) else {
        return .json(ProfilePayload(profile))
      }
      return waits.wait(
        .init(appId: appId, profileId: id), seconds: budget,
        attempt: {
          errors.answer {
            let profile = try profiles.existing(appId: appId, id: id)
            return AppleAdsTokens.settled(profile) ? .json(ProfilePayload(profile)) : nil
          }
        },
        timeUp: {
          errors.answer {
            let profile = try profiles.existing(appId: appId, id: id)
            if AppleAdsTokens.settled(profile) { return .json(ProfilePayload(profile)) }
            return .json(AttributionPendingResponse(profile: ProfilePayload(profile)), status: 202)
          }
        })
    }
  }

  /// Whether a `Prefer` header (RFC 7240: comma-separated preferences, each possibly with
  /// `;` parameters, names case-insensitive) asks for `respond-async`.
  static func respondAsync(_ prefer: String?) -> Bool {
    guard let prefer else { return false }
    return prefer.split(separator: ",").contains { preference in
      let name = preference.split(separator: ";").first?.split(separator: "=").first ?? ""
      return name.trimmingCharacters(in: .whitespaces).lowercased() == "respond-async"
    }
  }
}
