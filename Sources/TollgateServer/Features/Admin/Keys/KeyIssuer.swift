import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Creates apps and their keys. Keys are shown once and stored only as SHA-256 hashes.
public struct KeyIssuer: Sendable {
  /// A freshly issued key pair, in clear text: the only time it is visible.
  public struct IssuedKeys: Sendable {
    /// The app they belong to.
    public let app: AppRecord
    /// `tg_pub_…`: goes into the iOS app (`Authorization: Api-Key …`).
    public let publicKey: String
    /// `tg_sec_…`: for admin routes (`Authorization: Bearer …`); keep it secret.
    public let secretKey: String
  }

  let apps: any AppRepository
  let time: any TimeSource

  /// Creates an issuer over a store.
  public init(apps: any AppRepository, time: any TimeSource = SystemTimeSource()) {
    self.apps = apps
    self.time = time
  }

  /// Creates the app if it does not exist, then a new public and secret key for it.
  public func issue(appName: String) throws -> IssuedKeys {
    let app = try apps.app(named: appName) ?? apps.createApp(name: appName)
    let publicKey = "tg_pub_" + Digest.hex(Digest.randomBytes(16))
    let secretKey = "tg_sec_" + Digest.hex(Digest.randomBytes(24))
    try apps.addKey(
      appId: app.id, kind: .publicKey, hash: Self.hash(publicKey), at: time.now(), label: nil, scopes: [.all],
      expiresAt: nil)
    try apps.addKey(
      appId: app.id, kind: .secretKey, hash: Self.hash(secretKey), at: time.now(), label: nil, scopes: [.all],
      expiresAt: nil)
    try apps.audit(
      appId: app.id,
      AuditRecord(
        at: time.now(), actor: "cli", action: "key.created",
        detail: AuditDetail.json([
          "key_id": .string(KeyRecord.id(hash: Self.hash(publicKey))),
          "secret_key_id": .string(KeyRecord.id(hash: Self.hash(secretKey))),
        ])))
    return IssuedKeys(app: app, publicKey: publicKey, secretKey: secretKey)
  }

  /// A new key of one kind for an existing app, shown once; returns it with its id. A secret
  /// key may be limited to `scopes` and may stop working at `expiresAt`.
  public func create(
    appId: Int64, kind: KeyKind, label: String?, scopes: [KeyScope] = [.all], expiresAt: Date? = nil,
    by actor: String
  ) throws -> (key: String, record: KeyRecord) {
    let key =
      kind == .publicKey
      ? "tg_pub_" + Digest.hex(Digest.randomBytes(16)) : "tg_sec_" + Digest.hex(Digest.randomBytes(24))
    try apps.addKey(
      appId: appId, kind: kind, hash: Self.hash(key), at: time.now(), label: label, scopes: scopes,
      expiresAt: expiresAt)
    let record =
      try apps.key(hash: Self.hash(key)) ?? KeyRecord(appId: appId, kind: kind, id: KeyRecord.id(hash: Self.hash(key)))
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "key.created",
        detail: AuditDetail.json(
          ["key_id": .string(record.id), "kind": .string(kind.rawValue)].merging(
            kind == .secretKey ? ["scopes": .string(scopes.map(\.rawValue).joined(separator: ","))] : [:]
          ) { first, _ in first })))
    return (key, record)
  }

  /// Revokes a key; refuses the app's last active secret key (the admin API would be locked).
  public func revoke(appId: Int64, keyId: String, by actor: String) throws -> KeyRecord {
    let keys = try apps.keys(appId: appId)
    guard let target = keys.first(where: { $0.id == keyId }) else {
      throw DomainError.notFound(.keyNotFound, "This app has no key \(keyId).")
    }
    if target.kind == .secretKey, target.revokedAt == nil,
      target.scopes.contains(.all),
      !keys.contains(where: {
        $0.kind == .secretKey && $0.revokedAt == nil && $0.id != keyId && $0.scopes.contains(.all)
          && $0.expiresAt == nil
      })
    {
      throw DomainError(
        .lastSecretKey, "Create another secret key with every scope, never expiring, before revoking the last one.")
    }
    guard let revoked = try apps.revokeKey(appId: appId, id: keyId, at: time.now()) else {
      throw DomainError.notFound(.keyNotFound, "This app has no key \(keyId).")
    }
    if target.revokedAt == nil {
      try apps.audit(
        appId: appId,
        AuditRecord(
          at: time.now(), actor: actor, action: "key.revoked",
          detail: AuditDetail.json(["key_id": .string(keyId), "kind": .string(target.kind.rawValue)])))
    }
    return revoked
  }

  /// What the store keeps of a key.
  public static func hash(_ key: String) -> String { KeyHash.of(key) }
}

/// Audit details as a JSON object's text.
enum AuditDetail {
  static func json(_ members: [String: JSONValue]) -> String {
    String(decoding: WireCoding.encode(JSONValue.object(members)), as: UTF8.self)
  }
}
