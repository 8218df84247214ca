import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET`/`POST /v1/admin/keys`, `DELETE /v1/admin/keys/{keyId}` and `GET /v1/admin/audit`. A
/// revoked key is forgotten by this instance's authenticator at once.
struct KeysController: Sendable {
  let auth: Authenticator
  let keys: KeyService

  func register(on router: inout Router) {
    router.add("GET", "/v1/admin/keys", needs: .keysWrite, auth) { request, caller in
      return .json(["keys": try keys.keys(appId: caller.appId).map { KeyPayload($0) }])
    }

    router.add("POST", "/v1/admin/keys", needs: .keysWrite, auth) { request, caller in
      let body = try request.decodeJSON(CreateKeyRequest.self)
      let (key, record) = try keys.create(
        appId: caller.appId, kind: body.kind, label: body.label, scopes: body.scopes,
        expiresInDays: body.expiresInDays, by: caller.actor)
      return .json(KeyPayload(record, key: key), status: 201)
    }

    router.add("DELETE", "/v1/admin/keys/{keyId}", needs: .keysWrite, auth) { request, caller in
      let revoked = try keys.revoke(appId: caller.appId, keyId: request.parameter("keyId"), by: caller.actor)
      auth.forgetAll()
      return .json(KeyPayload(revoked))
    }

    router.add("GET", "/v1/admin/audit", needs: .auditRead, auth) { request, caller in
      let limit = try request.limit(default: 100, maximum: 1_000)
      let entries = try keys.auditLog(
        appId: caller.appId, before: request.query["before"], limit: limit, actor: request.query["actor"]
      ).map {
        AuditPayload(
          seq: $0.seq, at: Timestamp.string($0.at), actor: $0.actor, action: $0.action,
          detail: (try? WireCoding.decoder.decode(JSONValue.self, from: Data($0.detail.utf8))) ?? .object([:]),
          address: $0.address, session: $0.session)
      }
      return .json(["entries": entries])
    }
  }
}

/// A key as the admin API shows it (never the key itself, except once at creation).
struct KeyPayload: Codable, Sendable {
  var id: String
  var kind: String
  var label: String?
  var createdAt: String
  var lastUsedAt: String?
  var revokedAt: String?
  /// What a secret key may do (nil for public keys).
  var scopes: [String]?
  var expiresAt: String?
  /// Only in the answer that created it.
  var key: String?

  enum CodingKeys: String, CodingKey {
    case id, kind, label, key, scopes
    case createdAt = "created_at"
    case lastUsedAt = "last_used_at"
    case revokedAt = "revoked_at"
    case expiresAt = "expires_at"
  }

  init(_ record: KeyRecord, key: String? = nil) {
    id = record.id
    kind = record.kind.rawValue
    label = record.label
    createdAt = Timestamp.string(record.createdAt)
    lastUsedAt = record.lastUsedAt.map(Timestamp.string)
    revokedAt = record.revokedAt.map(Timestamp.string)
    scopes = record.kind == .secretKey ? record.scopes.map(\.rawValue) : nil
    expiresAt = record.expiresAt.map(Timestamp.string)
    self.key = key
  }
}

/// `POST /v1/admin/keys`.
struct CreateKeyRequest: Codable, Sendable {
  var kind: String
  var label: String?
  var scopes: [String]?
  var expiresInDays: Int?

  enum CodingKeys: String, CodingKey {
    case kind, label, scopes
    case expiresInDays = "expires_in_days"
  }
}

/// One entry of `GET /v1/admin/audit`.
struct AuditPayload: Codable, Sendable {
  var seq: Int64
  var at: String
  var actor: String
  var action: String
  var detail: JSONValue
  /// The client's address, when a request made it.
  var address: String?
  /// The console session (`ses_…`), when a person made it.
  var session: String?
}
