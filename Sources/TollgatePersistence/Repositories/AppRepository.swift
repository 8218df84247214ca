import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Apps, their keys (stored hashed) and the audit log of admin actions.
public protocol AppRepository: Sendable {
  /// Creates an app; throws `StoreError.appExists` when the name is taken.
  func createApp(name: String) throws -> AppRecord

  /// The app with this name.
  func app(named name: String) throws -> AppRecord?

  /// The app with this id.
  func app(id: Int64) throws -> AppRecord?

  /// Every app's id and current revision (config caches compare against it).
  func revisions() throws -> [Int64: Int64]

  /// Stores a key's SHA-256 hash, with its scopes and expiry.
  func addKey(
    appId: Int64, kind: KeyKind, hash: String, at: Date, label: String?, scopes: [KeyScope], expiresAt: Date?
  ) throws

  /// The key with this hash (revoked ones too: the caller refuses them).
  func key(hash: String) throws -> KeyRecord?

  /// The app's keys, oldest first.
  func keys(appId: Int64) throws -> [KeyRecord]

  /// Revokes a key by id; nil when the app has no such key. Revoking twice keeps the first time.
  func revokeKey(appId: Int64, id: String, at: Date) throws -> KeyRecord?

  /// Notes that a key was used at `at`.
  func touchKey(hash: String, at: Date) throws

  /// Appends to the audit log.
  func audit(appId: Int64, _ entry: AuditRecord) throws

  /// The audit log, newest first, entries before `before` (a seq) when given, only `actor`'s
  /// when given.
  func auditLog(appId: Int64, before: Int64?, limit: Int, actor: String?) throws -> [AuditRecord]
}
