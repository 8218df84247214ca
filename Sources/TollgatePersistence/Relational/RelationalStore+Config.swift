import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `ConfigRepository` on SQL: each applied document is kept; the app row holds the current revision.
extension RelationalStore {
  public func applyConfig(appId: Int64, document: Data, at: Date, by: String?, summary: String?) throws -> Int64 {
    try with { db in
      try db.transaction {
        let rows = try db.query(
          "UPDATE apps SET revision = revision + 1 WHERE id = ? RETURNING revision",
          [.integer(appId)])
        guard let revision = try rows.first?.decode("revision", as: Int64.self) else {
          throw StoreError.database("no app with id \(appId)")
        }
        try db.query(
          "INSERT INTO configs (app_id, revision, document, applied_at, applied_by, summary) VALUES (?, ?, ?, ?, ?, ?)",
          [
            .integer(appId), .integer(revision), .blob(document), .real(at.timeIntervalSince1970),
            by.map(SQLValue.text) ?? .null, summary.map(SQLValue.text) ?? .null,
          ])
        if let announce = dialect.announceProfile {
          try db.query(announce, [.text(ProfileAnnouncements.configPrefix + String(appId))])
        }
        return revision
      }
    }
  }

  public func configHistory(appId: Int64, limit: Int) throws -> [ConfigRevisionRecord] {
    try with { db in
      try db.query(
        """
        SELECT revision, applied_at, applied_by, summary FROM configs WHERE app_id = ?
        ORDER BY revision DESC LIMIT ?
        """, [.integer(appId), .integer(Int64(limit))]
      ).map { row in
        ConfigRevisionRecord(
          revision: try row.decode("revision"), appliedAt: try row.decode("applied_at"),
          appliedBy: try row.decode("applied_by"), summary: try row.decode("summary"))
      }
    }
  }

  public func config(appId: Int64, revision: Int64) throws -> ConfigRecord? {
    try with { db in
      try db.query(
        "SELECT revision, document, applied_at FROM configs WHERE app_id = ? AND revision = ?",
        [.integer(appId), .integer(revision)]
      ).first.map(Self.configRecord)
    }
  }

  public func currentConfig(appId: Int64) throws -> ConfigRecord? {
    try with { db in
      try db.query(
        """
        SELECT c.revision, c.document, c.applied_at FROM configs c
        JOIN apps a ON a.id = c.app_id AND a.revision = c.revision WHERE c.app_id = ?
        """, [.integer(appId)]
      ).first.map(Self.configRecord)
    }
  }

  static func configRecord(_ row: SQLRow) throws -> ConfigRecord {
    ConfigRecord(
      revision: try row.decode("revision"), document: try row.decode("document"),
      appliedAt: try row.decode("applied_at"))
  }
}
