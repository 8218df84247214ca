import Foundation
import TollgateAPI

/// `GET /v1/admin/app`.
struct AppInfoPayload: Codable, Sendable {
  var name: String
  var revision: Int64
}

/// `PUT /v1/admin/config`'s answer.
struct ConfigAppliedPayload: Codable, Sendable {
  var revision: Int64
  var placements: [String]
}

/// `GET /v1/admin/config`.
struct ConfigPayload: Codable, Sendable {
  var revision: Int64
  var appliedAt: String
  var document: JSONValue

  enum CodingKeys: String, CodingKey {
    case revision, document
    case appliedAt = "applied_at"
  }
}

/// `GET /v1/admin/stats/placements/{id}`.
struct PlacementStatsPayload: Codable, Sendable {
  var placementId: String
  var variations: [ImpressionRow]

  enum CodingKeys: String, CodingKey {
    case variations
    case placementId = "placement_id"
  }
}

extension Endpoints {
  func addAdminRoutes(to router: inout Router) {
    router.add("GET", "/v1/admin/app") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      guard let app = try store.app(id: appId) else {
        throw HTTPError.notFound("app_not_found", "The app of this key no longer exists.")
      }
      return .json(AppInfoPayload(name: app.name, revision: app.revision))
    }

    router.add("PUT", "/v1/admin/config") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      try Endpoints.requireJSON(request)
      let config = try ConfigImporter(store: store, time: time).apply(request.body, appId: appId)
      configs.install(appId: appId, config: config)
      logger.info("app \(appId): configuration revision \(config.revision) applied")
      return .json(ConfigAppliedPayload(revision: config.revision, placements: config.placementIds))
    }

    router.add("GET", "/v1/admin/config") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      guard let record = try store.currentConfig(appId: appId) else {
        throw HTTPError.notFound("config_not_found", "This app has no configuration yet.")
      }
      let document = try WireCoding.decoder.decode(JSONValue.self, from: record.document)
      return .json(
        ConfigPayload(
          revision: record.revision, appliedAt: Timestamp.string(record.appliedAt), document: document))
    }

    router.add("GET", "/v1/admin/profiles/{profileId}") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(Self.payload(try existingProfile(appId: appId, id: request.parameter("profileId"))))
    }

    router.add("GET", "/v1/admin/stats/placements/{placementId}") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      let placementId = request.parameter("placementId")
      let rows = try store.impressions(appId: appId, placementId: placementId)
      let configured = try configs.entry(appId: appId)?.config.placements[placementId] != nil
      guard configured || !rows.isEmpty else { throw Self.placementNotFound(placementId) }
      return .json(PlacementStatsPayload(placementId: placementId, variations: rows))
    }
  }
}
