import Foundation
import TollgateDomain
import TollgateSupport

/// `SavedListRepository` on SQL: one row per list, its values as one text.
extension RelationalStore {
  public func putSavedList(appId: Int64, id: String, values: SavedListValues, at: Date) throws -> Bool {
    try with { db in
      try db.transaction {
        let existed = try !db.query(
          "SELECT id FROM saved_lists WHERE app_id = ? AND id = ?", [.integer(appId), .text(id)]
        ).isEmpty
        try db.query(
          """
          INSERT INTO saved_lists (app_id, id, size, checksum, content, updated_at) VALUES (?, ?, ?, ?, ?, ?)
          ON CONFLICT (app_id, id) DO UPDATE SET size = excluded.size, checksum = excluded.checksum,
            content = excluded.content, updated_at = excluded.updated_at
          """,
          [
            .integer(appId), .text(id), .integer(Int64(values.values.count)), .text(values.checksum),
            .text(values.text), .real(at.timeIntervalSince1970),
          ])
        try listsChanged(db, appId: appId)
        return !existed
      }
    }
  }

  public func savedListInfo(appId: Int64, id: String) throws -> SavedListInfo? {
    try with { db in
      try db.query(
        "SELECT id, size, checksum, updated_at FROM saved_lists WHERE app_id = ? AND id = ?",
        [.integer(appId), .text(id)]
      ).first.map(Self.savedListInfo)
    }
  }

  public func savedListInfos(appId: Int64) throws -> [SavedListInfo] {
    try with { db in
      try db.query(
        "SELECT id, size, checksum, updated_at FROM saved_lists WHERE app_id = ? ORDER BY id", [.integer(appId)]
      ).map(Self.savedListInfo)
    }
  }

  public func savedListValues(appId: Int64, ids: [String]) throws -> [String: (
    info: SavedListInfo, values: SavedListValues
  )] {
    guard !ids.isEmpty else { return [:] }
    return try with { db in
      var lists: [String: (info: SavedListInfo, values: SavedListValues)] = [:]
      for row in try db.query(
        """
        SELECT id, size, checksum, updated_at, content FROM saved_lists
        WHERE app_id = ? AND id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
        """, [.integer(appId)] + ids.map(SQLValue.text))
      {
        let info = try Self.savedListInfo(row)
        lists[info.id] = (info, SavedListValues(stored: try row.decode("content")))
      }
      return lists
    }
  }

  public func deleteSavedList(appId: Int64, id: String) throws -> Bool {
    try with { db in
      try db.transaction {
        try db.query("DELETE FROM saved_lists WHERE app_id = ? AND id = ?", [.integer(appId), .text(id)])
        guard db.changes == 1 else { return false }
        try listsChanged(db, appId: appId)
        return true
      }
    }
  }

  public func listRevisions() throws -> [Int64: Int64] { try perApp("lists_revision") }

  /// Counts the change and tells the other instances, inside the caller's transaction.
  private func listsChanged(_ db: any SQLConnection, appId: Int64) throws {
    try db.query("UPDATE apps SET lists_revision = lists_revision + 1 WHERE id = ?", [.integer(appId)])
    if let announce = dialect.announceProfile {
      try db.query(announce, [.text(ProfileAnnouncements.configPrefix + String(appId))])
    }
  }

  private static func savedListInfo(_ row: SQLRow) throws -> SavedListInfo {
    SavedListInfo(
      id: try row.decode("id"), size: try row.decode("size"), checksum: try row.decode("checksum"),
      updatedAt: try row.decode("updated_at"))
  }
}
