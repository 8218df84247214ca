import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// An app: the unit that owns keys, configuration, profiles and events.
public struct AppRecord: Sendable, Hashable {
  /// Internal id.
  public var id: Int64
  /// Unique name chosen by the operator.
  public var name: String
  /// Configuration revision; 0 before the first import.
  public var revision: Int64
}

/// Which routes a key opens.
public enum KeyKind: String, Sendable {
  /// `Api-Key` for SDK routes; ships inside the app.
  case publicKey = "public"
  /// `Bearer` for admin routes; stays on the operator's side.
  case secretKey = "secret"
}

/// A stored key: its hash, never the key itself.
public struct KeyRecord: Sendable, Hashable {
  /// The app the key belongs to.
  public var appId: Int64
  /// Public or secret.
  public var kind: KeyKind
  /// Its public identifier (`key_` and the first 16 hex digits of its hash).
  public var id: String = ""
  /// When it was revoked; a revoked key opens nothing.
  public var revokedAt: Date? = nil
  /// The last time a request used it (kept to the minute, not per request).
  public var lastUsedAt: Date? = nil
  /// When it was created.
  public var createdAt: Date = Date(timeIntervalSince1970: 0)
  /// The operator's note.
  public var label: String? = nil
  /// What a secret key may do (`[.all]` for keys made before scopes).
  public var scopes: [KeyScope] = [.all]
  /// When it stops working (nil: never).
  public var expiresAt: Date? = nil

  /// Every stored field.
  package init(
    appId: Int64, kind: KeyKind, id: String = "", revokedAt: Date? = nil, lastUsedAt: Date? = nil,
    createdAt: Date = Date(timeIntervalSince1970: 0), label: String? = nil, scopes: [KeyScope] = [.all],
    expiresAt: Date? = nil
  ) {
    self.scopes = scopes
    self.expiresAt = expiresAt
    self.appId = appId
    self.kind = kind
    self.id = id
    self.revokedAt = revokedAt
    self.lastUsedAt = lastUsedAt
    self.createdAt = createdAt
    self.label = label
  }

  /// The public identifier of the key with this hash.
  public static func id(hash: String) -> String { "key_" + hash.prefix(16) }
}

/// One admin action, kept for the audit log.
public struct AuditRecord: Sendable, Hashable {
  /// Grows with each entry.
  public var seq: Int64 = 0
  /// When it happened.
  public var at: Date
  /// A key id, or `cli`.
  public var actor: String
  /// What was done, e.g. `key.revoked`, `config.applied`.
  public var action: String
  /// Details (JSON object text).
  public var detail: String
  /// The client's address, when a request made it.
  public var address: String?
  /// The console session, when a person made it.
  public var session: String?

  /// An entry; where it came from is the request being handled unless given.
  public init(
    seq: Int64 = 0, at: Date, actor: String, action: String, detail: String,
    address: String? = RequestOrigin.current?.address, session: String? = RequestOrigin.current?.session
  ) {
    self.seq = seq
    self.at = at
    self.actor = actor
    self.action = action
    self.detail = detail
    self.address = address
    self.session = session
  }
}
