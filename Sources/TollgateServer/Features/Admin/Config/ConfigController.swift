import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /v1/admin/app`, `PUT`/`GET /v1/admin/config`, `GET /v1/admin/config/history`,
/// `GET /v1/admin/config/revisions/{revision}` and `POST /v1/admin/config/rollback`.
struct ConfigController: Sendable {
  let auth: Authenticator
  let config: ConfigService

  func register(on router: inout Router) {
    router.add("GET", "/v1/admin/app", needs: .overviewRead, auth) { request, caller in
      let app = try config.app(appId: caller.appId)
      return .json(AppInfoPayload(name: app.name, revision: app.revision))
    }

    router.add("PUT", "/v1/admin/config", needs: .configWrite, auth) { request, caller in
      try request.requireJSON()
      let (applied, secrets) = try config.apply(request.body, appId: caller.appId, by: caller.actor)
      return .json(
        ConfigAppliedPayload(
          revision: applied.revision, placements: applied.placementIds,
          webhookSecrets: secrets.isEmpty ? nil : secrets))
    }

    router.add("GET", "/v1/admin/config", needs: .configRead, auth) { request, caller in
      .json(try ConfigPayload(config.current(appId: caller.appId)))
    }

    router.add("GET", "/v1/admin/config/history", needs: .configRead, auth) { request, caller in
      let limit = try request.limit(default: 50, maximum: 500)
      let (revisions, current) = try config.history(appId: caller.appId, limit: limit)
      return .json([
        "revisions": revisions.map {
          ConfigRevisionPayload(
            revision: $0.revision, appliedAt: Timestamp.string($0.appliedAt), appliedBy: $0.appliedBy,
            summary: $0.summary, current: $0.revision == current)
        }
      ])
    }

    router.add("GET", "/v1/admin/config/revisions/{revision}", needs: .configRead, auth) { request, caller in
      return .json(try ConfigPayload(config.revision(appId: caller.appId, request.parameter("revision"))))
    }

    router.add("POST", "/v1/admin/config/rollback", needs: .configWrite, auth) { request, caller in
      let body = try request.decodeJSON(RollbackRequest.self)
      let applied = try config.rollback(appId: caller.appId, to: body.revision, by: caller.actor)
      return .json(
        ConfigAppliedPayload(revision: applied.revision, placements: applied.placementIds, webhookSecrets: nil))
    }
  }
}

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

extension ConfigPayload {
  /// A stored revision as the API shows it: the document as JSON.
  init(_ record: ConfigRecord) throws {
    self.init(
      revision: record.revision, appliedAt: Timestamp.string(record.appliedAt),
      document: try WireCoding.decoder.decode(JSONValue.self, from: record.document))
  }
}

/// One entry of `GET /v1/admin/config/history`.
struct ConfigRevisionPayload: Codable, Sendable {
  var revision: Int64
  var appliedAt: String
  var appliedBy: String?
  var summary: String?
  var current: Bool

  enum CodingKeys: String, CodingKey {
    case revision, summary, current
    case appliedAt = "applied_at"
    case appliedBy = "applied_by"
  }
}

/// `POST /v1/admin/config/rollback`.
struct RollbackRequest: Codable, Sendable {
  var revision: Int64
}
