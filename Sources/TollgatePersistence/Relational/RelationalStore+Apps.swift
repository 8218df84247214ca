import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `AppRepository` on SQL: apps, keys (hashed) and the audit log.
extension RelationalStore {
  public func createApp(name: String) throws -> AppRecord {
    try with { db in
      try db.transaction {
        guard try db.query("SELECT 1 FROM apps WHERE name = ?", [.text(name)]).isEmpty else {
          throw StoreError.appExists(name)
        }
        let rows = try db.query(
          "INSERT INTO apps (name, revision, created_at) VALUES (?, 0, ?) RETURNING id",
          [.text(name), .real(Date().timeIntervalSince1970)])
        guard let row = rows.first else { throw StoreError.database("INSERT … RETURNING id answered no row") }
        return AppRecord(id: try row.decode("id"), name: name, revision: 0)
      }
    }
  }

  public func app(named name: String) throws -> AppRecord? {
    try with { db in
      try db.query("SELECT id, name, revision FROM apps WHERE name = ?", [.text(name)])
        .first.map(Self.app)
    }
  }

  public func app(id: Int64) throws -> AppRecord? {
    try with { db in
      try db.query("SELECT id, name, revision FROM apps WHERE id = ?", [.integer(id)])
        .first.map(Self.app)
    }
  }

  static func app(_ row: SQLRow) throws -> AppRecord {
    AppRecord(id: try row.decode("id"), name: try row.decode("name"), revision: try row.decode("revision"))
  }

  public func revisions() throws -> [Int64: Int64] { try perApp("revision") }

  /// One integer column of `apps`, by app id.
  func perApp(_ column: String) throws -> [Int64: Int64] {
    try with { db in
      var result: [Int64: Int64] = [:]
      for row in try db.query("SELECT id, \(column) FROM apps") {
        result[try row.decode("id", as: Int64.self)] = try row.decode(column, as: Int64.self)
      }
      return result
    }
  }

  public func addKey(
    appId: Int64, kind: KeyKind, hash: String, at: Date, label: String?, scopes: [KeyScope], expiresAt: Date?
  ) throws {
    try with { db in
      try db.query(
        """
        INSERT INTO api_keys (hash, app_id, kind, created_at, label, scopes, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
        [
          .text(hash), .integer(appId), .text(kind.rawValue), .real(at.timeIntervalSince1970),
          label.map(SQLValue.text) ?? .null,
          // NULL is every permission: keys made before scopes read the same way.
          scopes == [.all] ? .null : .text(scopes.map(\.rawValue).joined(separator: ",")),
          expiresAt.map { .real($0.timeIntervalSince1970) } ?? .null,
        ])
    }
  }

  static var keyColumns: String {
    "hash, app_id, kind, created_at, label, revoked_at, last_used_at, scopes, expires_at"
  }

  static func keyRecord(_ row: SQLRow) throws -> KeyRecord {
    let kindName = try row.decode("kind", as: String.self)
    guard let kind = KeyKind(rawValue: kindName) else { throw StoreError.corruptRow("unknown key kind \(kindName)") }
    return KeyRecord(
      appId: try row.decode("app_id"), kind: kind, id: KeyRecord.id(hash: try row.decode("hash")),
      revokedAt: try row.decode("revoked_at"), lastUsedAt: try row.decode("last_used_at"),
      createdAt: try row.decode("created_at"), label: try row.decode("label"),
      scopes: try keyScopes(row.decode("scopes")), expiresAt: try row.decode("expires_at"))
  }

  static func keyScopes(_ text: String?) throws -> [KeyScope] {
    guard let text else { return [.all] }
    return try text.split(separator: ",").map { name in
      guard let scope = KeyScope(rawValue: String(name)) else {
        throw StoreError.corruptRow("unknown key scope \(name)")
      }
      return scope
    }
  }

  public func key(hash: String) throws -> KeyRecord? {
    try with { db in
      try db.query("SELECT \(Self.keyColumns) FROM api_keys WHERE hash = ?", [.text(hash)]).first.map(
        Self.keyRecord)
    }
  }

  public func keys(appId: Int64) throws -> [KeyRecord] {
    try with { db in
      try db.query(
        "SELECT \(Self.keyColumns) FROM api_keys WHERE app_id = ? ORDER BY created_at, hash", [.integer(appId)]
      ).map(Self.keyRecord)
    }
  }

  public func revokeKey(appId: Int64, id: String, at: Date) throws -> KeyRecord? {
    guard id.hasPrefix("key_"), id.count == 20 else { return nil }
    let prefix = String(id.dropFirst(4))
    return try with { db in
      try db.transaction {
        try db.query(
          "UPDATE api_keys SET revoked_at = ? WHERE app_id = ? AND substr(hash, 1, 16) = ? AND revoked_at IS NULL",
          [.real(at.timeIntervalSince1970), .integer(appId), .text(prefix)])
        return try db.query(
          "SELECT \(Self.keyColumns) FROM api_keys WHERE app_id = ? AND substr(hash, 1, 16) = ?",
          [.integer(appId), .text(prefix)]
        ).first.map(Self.keyRecord)
      }
    }
  }

  public func touchKey(hash: String, at: Date) throws {
    try with { db in
      try db.query(
        "UPDATE api_keys SET last_used_at = ? WHERE hash = ?", [.real(at.timeIntervalSince1970), .text(hash)])
    }
  }

  public func audit(appId: Int64, _ entry: AuditRecord) throws {
    try with { db in
      try db.query(
        "INSERT INTO audit_log (app_id, at, actor, action, detail, address, session) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
          .integer(appId), .real(entry.at.timeIntervalSince1970), .text(entry.actor), .text(entry.action),
          .text(entry.detail), entry.address.map(SQLValue.text) ?? .null, entry.session.map(SQLValue.text) ?? .null,
        ])
    }
  }

  public func auditLog(appId: Int64, before: Int64?, limit: Int, actor: String?) throws -> [AuditRecord] {
    try with { db in
      try db.query(
        """
        SELECT seq, at, actor, action, detail, address, session FROM audit_log
        WHERE app_id = ? AND seq < ? AND (? IS NULL OR actor = ?)
        ORDER BY seq DESC LIMIT ?
        """,
        [
          .integer(appId), .integer(before ?? Int64.max), actor.map(SQLValue.text) ?? .null,
          actor.map(SQLValue.text) ?? .null, .integer(Int64(limit)),
        ]
      ).map { row in
        AuditRecord(
          seq: try row.decode("seq"), at: try row.decode("at"), actor: try row.decode("actor"),
          action: try row.decode("action"), detail: try row.decode("detail"), address: try row.decode("address"),
          session: try row.decode("session"))
      }
    }
  }
}
