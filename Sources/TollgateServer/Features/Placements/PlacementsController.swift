import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /v1/sdk/placements/{placementId}/flow`, `…/default` and `GET /v1/sdk/fallback`: parse,
/// authorize, call `PlacementService`, encode. With `wait_for=apple_ads` the flow request is
/// the first launch's race done here in one request; its answer carries the profile too, so
/// the SDK needs no long poll of its own.
struct PlacementsController: Sendable {
  let auth: Authenticator
  let placements: PlacementService
  let profiles: ProfileService
  let waits: ProfileWaits
  let errors: ErrorMapping
  let maxWaitSeconds: Double
  /// Seconds a CDN or client may keep a default-audience answer.
  let defaultMaxAge: Int

  func register(on router: inout Router) {
    router.add(SDKRoute.placementFlow) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      guard let profileId = request.query["profile_id"], !profileId.isEmpty else {
        throw DomainError(.missingParameter, "The query parameter profile_id is required.")
      }
      let placementId = request.parameter("placementId")
      let found = try placements.placement(appId: appId, id: placementId)
      let profile = try profiles.targeting(appId: appId, id: profileId, schema: found.entry.config.targeting)
      let locale = request.query["locale"]
      // Most reads ask for no wait: they skip parsing one.
      let asksToWait = request.query["wait_for"] != nil || request.query["timeout_ms"] != nil
      guard asksToWait, let wait = try AttributionWait(request, cap: maxWaitSeconds) else {
        return .json(bytes: try placements.resolve(found, appId: appId, profile: profile, locale: locale))
      }
      let id = profile.profileId
      // Answered later: the configuration and the profile are read again then.
      let answer: @Sendable () -> Response = {
        errors.answer {
          let current = try profiles.existing(appId: appId, id: id)
          let found = try placements.placement(appId: appId, id: placementId)
          let view = TargetingView(profile: current, schema: found.entry.config.targeting)
          let body = try placements.resolve(found, appId: appId, profile: view, locale: locale)
          return .json(bytes: Self.adding(profile: current, to: body))
        }
      }
      return waits.wait(
        .init(appId: appId, profileId: id), seconds: wait.seconds,
        attempt: {
          errors.answer { AppleAdsTokens.settled(try profiles.existing(appId: appId, id: id)) ? answer() : nil }
        },
        timeUp: answer)
    }

    // Made once: formatting it was part of every default-audience answer.
    let cacheControl = [("Cache-Control", "public, max-age=\(defaultMaxAge)")]
    router.add(SDKRoute.placementDefault) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let rendered = try placements.defaultAnswer(
        appId: appId, placementId: request.parameter("placementId"), locale: request.query["locale"])
      return .conditional(request, etag: rendered.etag, headers: cacheControl) {
        .json(bytes: rendered.body)
      }
    }

    router.add(SDKRoute.fallback) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      return .json(try placements.fallbackFile(appId: appId))
    }
  }

  /// A rendered placement answer (a JSON object) with the `profile` member added.
  static func adding(profile: ProfileRecord, to body: Data) -> Data {
    guard body.last == UInt8(ascii: "}") else { return body }
    var combined = body.dropLast()
    combined.append(contentsOf: Array(#","profile":"#.utf8))
    combined.append(WireCoding.encode(ProfilePayload(profile)))
    combined.append(UInt8(ascii: "}"))
    return Data(combined)
  }
}
