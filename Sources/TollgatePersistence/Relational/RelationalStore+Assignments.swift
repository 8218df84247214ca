import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `AssignmentRepository` on SQL: the first stored variation of a slot wins, everywhere.
extension RelationalStore {
  public func assignment(_ key: AssignmentKey) throws -> String? {
    try with { db in
      try db.query(
        """
        SELECT variation_id FROM assignments
        WHERE app_id = ? AND profile_id = ? AND placement_id = ? AND audience_id = ?
        """, Self.values(key)
      ).first?.decode("variation_id")
    }
  }

  /// An assignment is a deterministic function of the bucket and the weights, so a commit
  /// lost to a power cut is recomputed identically: it does not wait for the disk, which
  /// is what makes first-time placement resolution fast.
  public func assign(_ key: AssignmentKey, variationId: String, at: Date) throws -> String {
    try relaxedPool.with { db in
      try db.transaction {
        if let relax = dialect.relaxTransaction { try db.execute(relax) }
        try db.query(
          """
          INSERT INTO assignments (app_id, profile_id, placement_id, audience_id, variation_id, assigned_at)
          VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
          """, Self.values(key) + [.text(variationId), .real(at.timeIntervalSince1970)])
        return try db.query(
          """
          SELECT variation_id FROM assignments
          WHERE app_id = ? AND profile_id = ? AND placement_id = ? AND audience_id = ?
          """, Self.values(key)
        ).first?.decode("variation_id") ?? variationId
      }
    }
  }

  /// One transaction for a batch; where another instance stored a different variation
  /// first, that one is remembered (the earliest stored assignment wins everywhere).
  public func storeAssignments(_ batch: [PendingAssignment]) throws -> [(AssignmentKey, String)] {
    try relaxedPool.with { db in
      try db.transaction { () throws -> [(AssignmentKey, String)] in
        if let relax = dialect.relaxTransaction { try db.execute(relax) }
        var differing: [(AssignmentKey, String)] = []
        for item in batch {
          let inserted = try db.query(
            """
            INSERT INTO assignments (app_id, profile_id, placement_id, audience_id, variation_id, assigned_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING variation_id
            """, Self.values(item.key) + [.text(item.variationId), .real(item.at.timeIntervalSince1970)])
          guard inserted.isEmpty else { continue }
          let stored = try db.query(
            """
            SELECT variation_id FROM assignments
            WHERE app_id = ? AND profile_id = ? AND placement_id = ? AND audience_id = ?
            """, Self.values(item.key)
          ).first?.decode("variation_id", as: String.self)
          if let stored, stored != item.variationId { differing.append((item.key, stored)) }
        }
        return differing
      }
    }
  }

  static func values(_ key: AssignmentKey) -> [SQLValue] {
    [.integer(key.appId), .text(key.profileId), .text(key.placementId), .text(key.audienceId)]
  }

  /// The profile's stored assignments.
  public func assignments(appId: Int64, profileId: String) throws -> [AssignmentRow] {
    try with { db in
      try db.query(
        """
        SELECT placement_id, audience_id, variation_id, assigned_at FROM assignments
        WHERE app_id = ? AND profile_id = ? ORDER BY placement_id, audience_id
        """, [.integer(appId), .text(profileId)]
      ).map { row in
        AssignmentRow(
          placementId: try row.decode("placement_id"), audienceId: try row.decode("audience_id"),
          variationId: try row.decode("variation_id"), assignedAt: Timestamp.string(try row.decode("assigned_at")))
      }
    }
  }
}
