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
  /// Signing secrets of webhooks new in this revision: shown this once.
  var webhookSecrets: [String: String]?

  enum CodingKeys: String, CodingKey {
    case revision, placements
    case webhookSecrets = "webhook_secrets"
  }
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
extension Endpoints {
  func addAdminRoutes(to router: inout Router) {
    router.add("GET", "/v1/admin/app") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      guard let app = try store.app(id: appId) else {
        throw DomainError.notFound(.appNotFound, "The app of this key no longer exists.")
      }
      return .json(AppInfoPayload(name: app.name, revision: app.revision))
    }

    router.add("PUT", "/v1/admin/config") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let appId = caller.appId
      try Endpoints.requireJSON(request)
      let (config, secrets) = try ConfigImporter(store: store, time: time, secrets: self.secrets)
        .applyReturningSecrets(request.body, appId: appId, by: caller.keyId)
      configs.install(appId: appId, config: config)
      logger.info("app \(appId): configuration revision \(config.revision) applied")
      return .json(
        ConfigAppliedPayload(
          revision: config.revision, placements: config.placementIds, webhookSecrets: secrets.isEmpty ? nil : secrets))
    }

    router.add("GET", "/v1/admin/config") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      guard let record = try store.currentConfig(appId: appId) else {
        throw DomainError.notFound(.configNotFound, "This app has no configuration yet.")
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
      let days = try ReportRange.days(from: request.query["from"], to: request.query["to"], now: time.now())
      let config = try configs.entry(appId: appId)?.config
      let counts = try store.placementStats(appId: appId, placementId: placementId, days: days)
      guard config?.placements[placementId] != nil || !counts.isEmpty else { throw Self.placementNotFound(placementId) }
      return .json(PlacementReport.build(placementId: placementId, days: days, counts: counts, config: config))
    }

    router.add("GET", "/v1/admin/stats/apple-ads") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      let days = try ReportRange.days(from: request.query["from"], to: request.query["to"], now: time.now())
      let name = request.query["by"] ?? AppleAdsGrouping.campaign.rawValue
      guard let grouping = AppleAdsGrouping(rawValue: name) else {
        throw DomainError(.badParameter, "by is campaign, ad_group or keyword.")
      }
      let counts = try store.appleAdsStats(appId: appId, days: days, by: grouping)
      return .json(
        AppleAdsReport.build(days: days, by: grouping, counts: counts, config: try configs.entry(appId: appId)?.config))
    }
  }
}
