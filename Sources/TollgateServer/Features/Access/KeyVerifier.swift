import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Whether a key opens a route: it must be known, not revoked, and of the route's kind. Known
/// keys are cached in memory (bounded) and checked against the store again when their entry is
/// older than `recheckSeconds`, so a key revoked through any instance is refused by every
/// instance within that time. `last_used_at` is written at most once a minute per key, on such
/// a check, not per request.
final class KeyVerifier: Sendable {
  /// Who a request acts as.
  struct Caller: Sendable {
    let appId: Int64
    /// The key's public id (audit log, config history).
    let keyId: String
    /// What its scopes allow.
    let permissions: Set<Permission>
  }

  private struct Known {
    var record: KeyRecord
    /// The union of the record's scopes, made once per check of the store: building the set
    /// on every request was 8 % of the server's time answering default-audience flows.
    var permissions: Set<Permission>
    var checkedAt: Date
  }

  private let apps: any AppRepository
  private let time: any TimeSource
  private let known = Mutex<[String: Known]>([:])
  static let maxCachedKeys = 10_000
  /// A revoked key stops working everywhere within this many seconds.
  static let recheckSeconds: TimeInterval = 0.5
  /// `last_used_at` is kept to this precision.
  static let usageResolution: TimeInterval = 60

  init(apps: any AppRepository, time: any TimeSource) {
    self.apps = apps
    self.time = time
  }

  /// The app and key `key` acts as, or 401 (`invalid_credentials`, `key_revoked`) / 403
  /// (`forbidden`: the wrong kind of key).
  func verify(_ key: String, needs kind: KeyKind) throws -> Caller {
    let now = time.now()
    // Known keys are looked up by their text, so the hot path does no hashing; the store
    // only ever sees (and keeps) the hash.
    let record: KeyRecord
    let permissions: Set<Permission>
    if let cached = known.withLock({ $0[key] }), now.timeIntervalSince(cached.checkedAt) < Self.recheckSeconds,
      now >= cached.checkedAt
    {
      record = cached.record
      permissions = cached.permissions
    } else {
      let hash = KeyHash.of(key)
      guard var stored = try apps.key(hash: hash) else {
        known.withLock { _ = $0.removeValue(forKey: key) }
        throw DomainError(.invalidCredentials, "This key is not known to this server.")
      }
      if stored.revokedAt == nil,
        stored.lastUsedAt.map({ abs(now.timeIntervalSince($0)) >= Self.usageResolution }) ?? true
      {
        // Best effort: a storage that cannot write must not turn reads away.
        if (try? apps.touchKey(hash: hash, at: now)) != nil { stored.lastUsedAt = now }
      }
      let granted = KeyScope.permissions(stored.scopes)
      known.withLock { known in
        if known.count >= Self.maxCachedKeys && known[key] == nil { known = [:] }
        known[key] = Known(record: stored, permissions: granted, checkedAt: now)
      }
      record = stored
      permissions = granted
    }
    guard record.revokedAt == nil else {
      throw DomainError(.keyRevoked, "This key was revoked; use another key of the app.")
    }
    if let expiresAt = record.expiresAt, now >= expiresAt {
      throw DomainError(.keyExpired, "This key expired on \(Timestamp.string(expiresAt)); create another.")
    }
    guard record.kind == kind else {
      throw kind == .secretKey
        ? DomainError(.forbidden, "Admin routes need the app's secret key; this is its public key.")
        : DomainError(.forbidden, "SDK routes take the app's public key; do not ship the secret key.")
    }
    return Caller(appId: record.appId, keyId: record.id, permissions: permissions)
  }

  /// Forgets cached keys at once (a key was revoked through this instance).
  func forgetAll() { known.withLock { $0 = [:] } }
}

/// How keys are kept: only their SHA-256, in hex.
package enum KeyHash {
  package static func of(_ key: String) -> String { Digest.sha256Hex(key) }
}
