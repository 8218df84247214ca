import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of keys and the audit log: an app has as many keys as it wants, each shown once
/// and stored hashed; revoking keeps the first time and never leaves an app without a secret
/// key; every admin action is in the audit log.
final class KeyService: Sendable {
  /// Labels longer than this are refused.
  static let maxLabelLength = 200

  let issuer: KeyIssuer
  let apps: any AppRepository
  let time: any TimeSource

  init(issuer: KeyIssuer, apps: any AppRepository, time: any TimeSource) {
    self.issuer = issuer
    self.apps = apps
    self.time = time
  }

  /// The app's keys, oldest first.
  func keys(appId: Int64) throws -> [KeyRecord] { try apps.keys(appId: appId) }

  /// A new key of `kind` (`public` or `secret`; 422 otherwise), returned in clear this once.
  func create(appId: Int64, kind name: String, label: String?, by actor: String) throws -> (
    key: String, record: KeyRecord
  ) {
    guard let kind = KeyKind(rawValue: name) else {
      throw DomainError.validation([.init(path: "$.kind", message: "public or secret")])
    }
    if let label, label.count > Self.maxLabelLength {
      throw DomainError.validation([.init(path: "$.label", message: "at most \(Self.maxLabelLength) characters")])
    }
    return try issuer.create(appId: appId, kind: kind, label: label, by: actor)
  }

  /// Revokes a key by id (404 `key_not_found`, 409 `last_secret_key`).
  func revoke(appId: Int64, keyId: String, by actor: String) throws -> KeyRecord {
    try issuer.revoke(appId: appId, keyId: keyId, by: actor)
  }

  /// The audit log, newest first; `before` (a sequence number from an earlier page) pages back.
  func auditLog(appId: Int64, before text: String?, limit: Int) throws -> [AuditRecord] {
    var before: Int64?
    if let text {
      guard let value = Int64(text), value > 0 else {
        throw DomainError(.badParameter, "before is a positive sequence number from an earlier page.")
      }
      before = value
    }
    return try apps.auditLog(appId: appId, before: before, limit: limit)
  }
}
