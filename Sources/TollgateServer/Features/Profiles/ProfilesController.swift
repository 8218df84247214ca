import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST /v1/sdk/profiles`, `GET` and `PATCH /v1/sdk/profiles/{profileId}`: parse, authorize,
/// call `ProfileService`, encode. The GET answers 304 for a matching ETag and can wait for
/// Apple Ads attribution (`wait_for=apple_ads`).
struct ProfilesController: Sendable {
  let auth: Authenticator
  let profiles: ProfileService
  let attribution: any AttributionHandOver
  let waits: ProfileWaits
  let errors: ErrorMapping
  let maxWaitSeconds: Double

  func register(on router: inout Router) {
    router.add(SDKRoute.createProfile) { request in
      let caller = try auth.caller(for: request, needs: .publicKey)
      let body = try request.decodeJSON(CreateProfileRequest.self)
      let (profile, created) = try profiles.create(appId: caller.appId, body)
      let current = try attribution.handOver(
        body.appleAdsToken, appId: caller.appId, profile: profile, keyId: caller.actor)
      return .json(ProfilePayload(current), status: created ? 201 : 200)
    }

    router.add(SDKRoute.profile) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let profile = try profiles.existing(appId: appId, id: request.parameter("profileId"))
      guard let wait = try AttributionWait(request, cap: maxWaitSeconds) else {
        return .conditional(request, etag: "\"v\(profile.version)\"") { .json(ProfilePayload(profile)) }
      }
      let id = profile.id
      let answer: @Sendable () -> Response = {
        errors.answer { .json(ProfilePayload(try profiles.existing(appId: appId, id: id))) }
      }
      return waits.wait(
        .init(appId: appId, profileId: id), seconds: wait.seconds,
        attempt: {
          errors.answer {
            AppleAdsTokens.settled(try profiles.existing(appId: appId, id: id)) ? answer() : nil
          }
        },
        timeUp: answer)
    }

    router.add(SDKRoute.updateProfile) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let body = try request.decodeJSON(UpdateProfileRequest.self)
      return .json(ProfilePayload(try profiles.update(appId: appId, id: request.parameter("profileId"), body)))
    }
  }
}

extension ProfilePayload {
  /// A stored profile as the API shows it.
  init(_ profile: ProfileRecord) {
    self.init(
      id: profile.id, version: profile.version, customerUserId: profile.customerUserId,
      install: profile.install, customAttributes: profile.customAttributes,
      appliedAttributionSources: profile.appliedSources,
      createdAt: Timestamp.string(profile.createdAt), updatedAt: Timestamp.string(profile.updatedAt),
      attributionStatus: profile.attribution.status.isEmpty ? nil : profile.attribution.status,
      purchases: profile.purchases.payload)
  }
}

/// Where a token sent with `POST /v1/sdk/profiles` goes (the attribution feature): queued
/// without waiting for Apple; the answer is the profile as it is now.
protocol AttributionHandOver: Sendable {
  func handOver(_ token: String?, appId: Int64, profile: ProfileRecord, keyId: String) throws -> ProfileRecord
}
