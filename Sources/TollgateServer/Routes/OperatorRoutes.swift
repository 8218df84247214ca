import Foundation
import TollgateAPI

/// A key as the admin API shows it (never the key itself, except once at creation).
struct KeyPayload: Codable, Sendable {
  var id: String
  var kind: String
  var label: String?
  var createdAt: String
  var lastUsedAt: String?
  var revokedAt: String?
  /// Only in the answer that created it.
  var key: String?

  enum CodingKeys: String, CodingKey {
    case id, kind, label, key
    case createdAt = "created_at"
    case lastUsedAt = "last_used_at"
    case revokedAt = "revoked_at"
  }

  init(_ record: KeyRecord, key: String? = nil) {
    id = record.id
    kind = record.kind.rawValue
    label = record.label
    createdAt = Timestamp.string(record.createdAt)
    lastUsedAt = record.lastUsedAt.map(Timestamp.string)
    revokedAt = record.revokedAt.map(Timestamp.string)
    self.key = key
  }
}

/// `POST /v1/admin/keys`.
struct CreateKeyRequest: Codable, Sendable {
  var kind: String
  var label: String?
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

/// One entry of `GET /v1/admin/audit`.
struct AuditPayload: Codable, Sendable {
  var seq: Int64
  var at: String
  var actor: String
  var action: String
  var detail: JSONValue
}

/// `GET /v1/admin/overview`: what the console's first page shows.
struct OverviewPayload: Encodable, Sendable {
  struct Requests: Codable, Sendable {
    var total: Int
    var clientErrors: Int
    var serverErrors: Int

    enum CodingKeys: String, CodingKey {
      case total
      case clientErrors = "client_errors"
      case serverErrors = "server_errors"
    }
  }

  struct Attribution: Codable, Sendable {
    var queueDepth: Int
    var outcomes: [String: Int]

    enum CodingKeys: String, CodingKey {
      case outcomes
      case queueDepth = "queue_depth"
    }
  }

  var name: String
  var revision: Int64
  var placements: [String]
  var requests: Requests
  var attribution: Attribution
  /// This app's attribution tokens by outcome, from the database.
  var funnel: AttributionFunnel
  /// Today, the last 7 and the last 30 UTC days.
  var revenue: [RevenuePeriod]
  var reportingCurrency: String?

  enum CodingKeys: String, CodingKey {
    case name, revision, placements, requests, attribution, funnel, revenue
    case reportingCurrency = "reporting_currency"
  }
}

extension Endpoints {
  /// Keys, configuration history and rollback, the audit log, and the console's overview.
  func addOperatorRoutes(to router: inout Router) {
    router.add("GET", "/v1/admin/overview") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      guard let app = try store.app(id: caller.appId) else {
        throw DomainError.notFound(.appNotFound, "The app of this key no longer exists.")
      }
      let classes = metrics.requestsByClass
      let config = try configs.entry(appId: app.id)?.config
      return .json(
        OverviewPayload(
          name: app.name, revision: app.revision,
          placements: config?.placementIds ?? [],
          requests: .init(
            total: classes.values.reduce(0, +), clientErrors: classes["4xx"] ?? 0, serverErrors: classes["5xx"] ?? 0),
          attribution: .init(
            queueDepth: try store.attributionQueueDepth(), outcomes: attribution.outcomeCounts),
          funnel: try store.attributionFunnel(appId: app.id),
          revenue: try revenuePeriods(appId: app.id, reporting: config?.reporting),
          reportingCurrency: config?.reporting?.currency))
    }

    router.add("GET", "/v1/admin/keys") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(["keys": try store.keys(appId: caller.appId).map { KeyPayload($0) }])
    }

    router.add("POST", "/v1/admin/keys") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let body = try decode(CreateKeyRequest.self, from: request)
      guard let kind = KeyKind(rawValue: body.kind) else {
        throw DomainError.validation([.init(path: "$.kind", message: "public or secret")])
      }
      if let label = body.label, label.count > Self.maxLabelLength {
        throw DomainError.validation([.init(path: "$.label", message: "at most \(Self.maxLabelLength) characters")])
      }
      let (key, record) = try KeyIssuer(store: store, time: time).create(
        appId: caller.appId, kind: kind, label: body.label, by: caller.keyId)
      return .json(KeyPayload(record, key: key), status: 201)
    }

    router.add("DELETE", "/v1/admin/keys/{keyId}") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let revoked = try KeyIssuer(store: store, time: time).revoke(
        appId: caller.appId, keyId: request.parameter("keyId"), by: caller.keyId)
      auth.forgetAll()
      return .json(KeyPayload(revoked))
    }

    router.add("GET", "/v1/admin/config/history") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let limit = try Self.limit(request, default: 50, maximum: 500)
      let current = try store.app(id: caller.appId)?.revision
      let history = try store.configHistory(appId: caller.appId, limit: limit).map {
        ConfigRevisionPayload(
          revision: $0.revision, appliedAt: Timestamp.string($0.appliedAt), appliedBy: $0.appliedBy,
          summary: $0.summary, current: $0.revision == current)
      }
      return .json(["revisions": history])
    }

    router.add("GET", "/v1/admin/config/revisions/{revision}") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      guard let revision = Int64(request.parameter("revision")),
        let record = try store.config(appId: caller.appId, revision: revision)
      else {
        throw DomainError.notFound(
          .revisionNotFound, "This app has no configuration revision \(request.parameter("revision")).")
      }
      let document = try WireCoding.decoder.decode(JSONValue.self, from: record.document)
      return .json(
        ConfigPayload(revision: record.revision, appliedAt: Timestamp.string(record.appliedAt), document: document))
    }

    router.add("POST", "/v1/admin/config/rollback") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let body = try decode(RollbackRequest.self, from: request)
      let config = try rollback(appId: caller.appId, to: body.revision, by: caller.keyId)
      return .json(
        ConfigAppliedPayload(revision: config.revision, placements: config.placementIds, webhookSecrets: nil))
    }

    router.add("GET", "/v1/admin/audit") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let limit = try Self.limit(request, default: 100, maximum: 1_000)
      var before: Int64?
      if let text = request.query["before"] {
        guard let value = Int64(text), value > 0 else {
          throw DomainError(.badParameter, "before is a positive sequence number from an earlier page.")
        }
        before = value
      }
      let entries = try store.auditLog(appId: caller.appId, before: before, limit: limit).map {
        AuditPayload(
          seq: $0.seq, at: Timestamp.string($0.at), actor: $0.actor, action: $0.action,
          detail: (try? WireCoding.decoder.decode(JSONValue.self, from: Data($0.detail.utf8))) ?? .object([:]))
      }
      return .json(["entries": entries])
    }
  }

  static let maxLabelLength = 200

  /// Applies an earlier revision's document as a new revision (history is never rewritten).
  func rollback(appId: Int64, to revision: Int64, by actor: String) throws -> CompiledConfig {
    guard let record = try store.config(appId: appId, revision: revision) else {
      throw DomainError.notFound(.revisionNotFound, "This app has no configuration revision \(revision).")
    }
    let (config, _) = try ConfigImporter(store: store, time: time, secrets: secrets).applyReturningSecrets(
      record.document, appId: appId, by: actor, note: "rollback to \(revision)")
    configs.install(appId: appId, config: config)
    logger.info("app \(appId): configuration revision \(config.revision) applied (rollback to \(revision))")
    return config
  }

  /// `?limit=`: a whole number from 1 to `maximum`.
  static func limit(_ request: Request, default fallback: Int, maximum: Int) throws -> Int {
    guard let text = request.query["limit"] else { return fallback }
    guard let value = Int(text), (1...maximum).contains(value) else {
      throw DomainError(.badParameter, "limit is a whole number from 1 to \(maximum).")
    }
    return value
  }
}
