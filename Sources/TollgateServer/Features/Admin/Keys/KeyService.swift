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

  /// The longest a key may live.
  static let maxExpiryDays = 3_650

  /// A new key of `kind` (`public` or `secret`; 422 otherwise), returned in clear this once. A
  /// secret key may be limited to `scopes` (default every one) and expire after `expiresInDays`.
  func create(
    appId: Int64, kind name: String, label: String?, scopes scopeNames: [String]? = nil, expiresInDays: Int? = nil,
    by actor: String
  ) throws -> (key: String, record: KeyRecord) {
    var problems: [APIError.Detail] = []
    let kind = KeyKind(rawValue: name)
    if kind == nil { problems.append(.init(path: "$.kind", message: "public or secret")) }
    if let label, label.count > Self.maxLabelLength {
      problems.append(.init(path: "$.label", message: "at most \(Self.maxLabelLength) characters"))
    }
    var scopes: [KeyScope] = [.all]
    if let scopeNames {
      let parsed = scopeNames.compactMap(KeyScope.init(rawValue:))
      if scopeNames.isEmpty || parsed.count != scopeNames.count {
        problems.append(
          .init(
            path: "$.scopes", message: "one or more of " + KeyScope.allCases.map(\.rawValue).joined(separator: ", ")))
      } else if kind == .publicKey, parsed != [.all] {
        problems.append(.init(path: "$.scopes", message: "only secret keys have scopes"))
      } else {
        scopes = parsed.contains(.all) ? [.all] : Array(Set(parsed)).sorted { $0.rawValue < $1.rawValue }
      }
    }
    if let expiresInDays, !(1...Self.maxExpiryDays).contains(expiresInDays) {
      problems.append(.init(path: "$.expires_in_days", message: "1 to \(Self.maxExpiryDays) days"))
    }
    guard problems.isEmpty, let kind else { throw DomainError.validation(problems) }
    return try issuer.create(
      appId: appId, kind: kind, label: label, scopes: scopes,
      expiresAt: expiresInDays.map { time.now().addingTimeInterval(Double($0) * 86_400) }, by: actor)
  }

  /// Revokes a key by id (404 `key_not_found`, 409 `last_secret_key`).
  func revoke(appId: Int64, keyId: String, by actor: String) throws -> KeyRecord {
    try issuer.revoke(appId: appId, keyId: keyId, by: actor)
  }

  /// The audit log, newest first; `before` (a sequence number from an earlier page) pages back.
  func auditLog(appId: Int64, before text: String?, limit: Int, actor: String? = nil) throws -> [AuditRecord] {
    var before: Int64?
    if let text {
      guard let value = Int64(text), value > 0 else {
        throw DomainError(.badParameter, "before is a positive sequence number from an earlier page.")
      }
      before = value
    }
    return try apps.auditLog(appId: appId, before: before, limit: limit, actor: actor.flatMap { $0.isEmpty ? nil : $0 })
  }
}
