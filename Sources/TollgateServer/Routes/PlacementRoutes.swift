import Foundation
import TollgateAPI

extension Endpoints {
  func addPlacementRoutes(to router: inout Router) {
    router.add(SDKRoute.placementFlow) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      guard let profileId = request.query["profile_id"], !profileId.isEmpty else {
        throw DomainError(.missingParameter, "The query parameter profile_id is required.")
      }
      let profile = try existingProfile(appId: appId, id: profileId)
      let placementId = request.parameter("placementId")
      _ = try configEntry(appId: appId, placementId: placementId)
      let locale = request.query["locale"]
      let id = profile.id
      // `current` is the profile already read for this request; a long poll reads it again.
      let resolve: @Sendable (ProfileRecord?) -> Response = { [self] current in
        respond {
          let profile = try current ?? existingProfile(appId: appId, id: id)
          let entry = try configEntry(appId: appId, placementId: placementId)
          let resolver = PlacementResolver(store: store, logger: logger)
          return .json(
            bytes: try resolver.resolveRendered(
              placementId: placementId, entry: entry, appId: appId, profile: profile,
              locale: locale ?? profile.install.locale, now: time.now()))
        }
      }
      // wait_for=apple_ads: the first-launch race, done here in one request; the answer
      // carries the profile too, so the SDK needs no long poll of its own.
      guard let wait = try AttributionWait(request, cap: maxWaitSeconds) else { return resolve(profile) }
      let answer: @Sendable () -> Response = { [self] in
        var response = resolve(nil)
        guard response.status == 200, let current = try? existingProfile(appId: appId, id: id) else { return response }
        response.body = Self.adding(profile: current, to: response.body)
        return response
      }
      return waits.wait(
        .init(appId: appId, profileId: id), seconds: wait.seconds,
        attempt: { [self] in respond { try attributionSettled(appId: appId, id: id) ? answer() : nil } },
        timeUp: answer)
    }

    router.add(SDKRoute.placementDefault) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let placementId = request.parameter("placementId")
      let entry = try configEntry(appId: appId, placementId: placementId)
      guard let rendered = entry.defaultResponse(placementId: placementId, locale: request.query["locale"])
      else { throw Self.placementNotFound(placementId) }
      return .conditional(
        request, etag: rendered.etag, headers: [("Cache-Control", "public, max-age=\(defaultMaxAge)")]
      ) {
        .json(bytes: rendered.body)
      }
    }

    router.add(SDKRoute.fallback) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      guard let entry = try configs.entry(appId: appId) else {
        throw DomainError.notFound(.configNotFound, "This app has no configuration yet; import one first.")
      }
      return .json(PlacementResolver.fallbackFile(config: entry.config, generatedAt: time.now()))
    }
  }

  /// A rendered placement answer (a JSON object) with the `profile` member added.
  static func adding(profile: ProfileRecord, to body: Data) -> Data {
    guard body.last == UInt8(ascii: "}") else { return body }
    var combined = body.dropLast()
    combined.append(contentsOf: Array(#","profile":"#.utf8))
    combined.append(WireCoding.encode(payload(profile)))
    combined.append(UInt8(ascii: "}"))
    return Data(combined)
  }

  /// The app's config when it has the placement, else 404 `placement_not_found`.
  func configEntry(appId: Int64, placementId: String) throws -> ConfigCache.Entry {
    guard let entry = try configs.entry(appId: appId), entry.config.placements[placementId] != nil else {
      throw Self.placementNotFound(placementId)
    }
    return entry
  }

  static func placementNotFound(_ id: String) -> DomainError {
    .notFound(.placementNotFound, "No placement \(id) in this app's configuration.")
  }
}
