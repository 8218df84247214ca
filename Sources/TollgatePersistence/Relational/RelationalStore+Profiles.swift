import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `ProfileRepository` on SQL: profiles as rows with JSON columns. A change is announced in
/// its transaction (PostgreSQL), so every instance's profile cache forgets the profile.
extension RelationalStore {
  public func insertProfile(appId: Int64, _ profile: ProfileRecord) throws -> (
    ProfileRecord, created: Bool
  ) {
    try with { db in
      try db.transaction {
        try db.query(
          """
          INSERT INTO profiles (app_id, \(SQLColumns.profile)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (app_id, id) DO NOTHING
          """, [.integer(appId)] + Self.values(profile))
        let created = db.changes == 1
        if created { try Self.rollCohort(db, appId: appId, profile: profile.id) }
        guard let stored = try Self.profile(db, appId: appId, id: profile.id) else {
          throw StoreError.database("profile vanished inside its transaction")
        }
        return (stored, created)
      }
    }
  }

  public func importProfiles(appId: Int64, _ profiles: [ProfileRecord]) throws -> Int {
    try with { db in
      try db.transaction {
        var inserted = 0
        let pending = PendingRollups()
        for profile in profiles {
          try db.query(
            """
            INSERT INTO profiles (app_id, \(SQLColumns.profile)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, id) DO NOTHING
            """, [.integer(appId)] + Self.values(profile))
          guard db.changes == 1 else { continue }
          inserted += 1
          try Self.rollCohort(db, appId: appId, profile: profile.id, pending: pending)
        }
        try Self.write(pending, db, appId: appId)
        return inserted
      }
    }
  }

  public func profile(appId: Int64, id: String) throws -> ProfileRecord? {
    try with { db in try Self.profile(db, appId: appId, id: id) }
  }

  public func profileWithAssignments(appId: Int64, id: String) throws -> (ProfileRecord, [AssignmentSlot: String])? {
    try with { db in
      guard let profile = try Self.profile(db, appId: appId, id: id) else { return nil }
      var assignments: [AssignmentSlot: String] = [:]
      for row in try db.query(
        "SELECT placement_id, audience_id, variation_id FROM assignments WHERE app_id = ? AND profile_id = ?",
        [.integer(appId), .text(id)])
      {
        assignments[try Self.slot(row)] = try row.decode("variation_id")
      }
      return (profile, assignments)
    }
  }

  public func profilePage(after: (appId: Int64, id: String), limit: Int) throws -> [CachedProfile] {
    try with { db in
      let rows = try db.query(
        """
        SELECT app_id, \(SQLColumns.profile) FROM profiles WHERE (app_id, id) > (?, ?)
        ORDER BY app_id, id LIMIT ?
        """, [.integer(after.appId), .text(after.id), .integer(Int64(limit))])
      guard let first = rows.first, let last = rows.last else { return [] }
      var assignments: [Owner: [AssignmentSlot: String]] = [:]
      let firstApp = try first.decode("app_id", as: Int64.self)
      let lastApp = try last.decode("app_id", as: Int64.self)
      let firstId = try first.decode("id", as: String.self)
      let lastId = try last.decode("id", as: String.self)
      // Within one app (nearly every page), plain bounds on the key's columns: PostgreSQL
      // estimates a two-sided row comparison as most of the table and scans all of it, which
      // took a second a page with 4 000 000 assignments.
      let (bounds, values): (String, [SQLValue]) =
        firstApp == lastApp
        ? ("app_id = ? AND profile_id >= ? AND profile_id <= ?", [.integer(firstApp), .text(firstId), .text(lastId)])
        : (
          "(app_id, profile_id) >= (?, ?) AND (app_id, profile_id) <= (?, ?)",
          [.integer(firstApp), .text(firstId), .integer(lastApp), .text(lastId)]
        )
      for row in try db.query(
        "SELECT app_id, profile_id, placement_id, audience_id, variation_id FROM assignments WHERE \(bounds)", values)
      {
        let key = Owner(appId: try row.decode("app_id"), id: try row.decode("profile_id"))
        assignments[key, default: [:]][try Self.slot(row)] = try row.decode("variation_id")
      }
      return try rows.map { row in
        let appId = try row.decode("app_id", as: Int64.self)
        let profile = try Self.decodeProfile(row)
        return (appId, profile, assignments[Owner(appId: appId, id: profile.id)] ?? [:])
      }
    }
  }

  /// The experiment slot of an `assignments` row.
  static func slot(_ row: SQLRow) throws -> AssignmentSlot {
    AssignmentSlot(placementId: try row.decode("placement_id"), audienceId: try row.decode("audience_id"))
  }

  public func profile(appId: Int64, customerUserId: String) throws -> ProfileRecord? {
    try with { db in
      guard
        let id = try db.query(
          "SELECT id FROM profiles WHERE app_id = ? AND customer_user_id = ? ORDER BY created_at, id LIMIT 1",
          [.integer(appId), .text(customerUserId)]
        ).first?.decode("id", as: String.self)
      else { return nil }
      return try Self.profile(db, appId: appId, id: id)
    }
  }

  public func updateProfile(
    appId: Int64, id: String, at: Date, _ change: (inout ProfileRecord) throws -> Bool
  ) throws -> ProfileRecord? {
    defer { profileChanges.announce(appId: appId, [id]) }
    return try with { db in
      try db.transaction {
        guard var profile = try Self.profile(db, appId: appId, id: id, lock: dialect.lockRow) else { return nil }
        guard try change(&profile) else { return profile }
        profile.version += 1
        profile.updatedAt = at
        try save(db, appId: appId, profile)
        return profile
      }
    }
  }

  func save(_ db: any SQLConnection, appId: Int64, _ profile: ProfileRecord, pending: PendingRollups? = nil) throws {
    if let announce = dialect.announceProfile { try db.query(announce, [.text("\(appId):\(profile.id)")]) }
    let values = Self.values(profile)
    try db.query(
      """
      UPDATE profiles SET version = ?, customer_user_id = ?, install = ?, custom_attributes = ?,
      applied_sources = ?, updated_at = ?, attribution = ?, purchases = ? WHERE app_id = ? AND id = ?
      """,
      [
        values[1], values[2], values[3], values[4], values[5], values[7], values[8], values[9], .integer(appId),
        .text(profile.id),
      ])
    // Its country may have changed: its install cohort row follows.
    try Self.rollCohortCountry(db, appId: appId, profile, pending: pending)
  }

  static func profile(_ db: any SQLConnection, appId: Int64, id: String, lock: String = "") throws
    -> ProfileRecord?
  {
    guard
      let row = try db.query(
        "SELECT \(SQLColumns.profile) FROM profiles WHERE app_id = ? AND id = ?\(lock)",
        [.integer(appId), .text(id)]
      ).first
    else { return nil }
    return try decodeProfile(row)
  }

  /// A profile from a row of `SQLColumns.profile`.
  static func decodeProfile(_ row: SQLRow) throws -> ProfileRecord {
    let decoder = WireCoding.decoder
    var profile = ProfileRecord(
      id: try row.decode("id"), version: try row.decode("version"), customerUserId: try row.decode("customer_user_id"),
      install: try decoder.decode(InstallMeta.self, from: try row.decode("install")),
      customAttributes: try decoder.decode([String: JSONValue].self, from: try row.decode("custom_attributes")),
      appliedSources: try decoder.decode([String].self, from: try row.decode("applied_sources")),
      createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    profile.attribution = try decoder.decode(ProfileAttribution.self, from: try row.decode("attribution"))
    profile.purchases = try decoder.decode(ProfilePurchases.self, from: try row.decode("purchases"))
    return profile
  }

  static func values(_ profile: ProfileRecord, encoding columns: JSONColumns = JSONColumns()) -> [SQLValue] {
    func json<T: Encodable & Hashable>(_ value: T) -> SQLValue { columns.encode(value) }
    return [
      .text(profile.id), .integer(profile.version),
      profile.customerUserId.map(SQLValue.text) ?? .null,
      json(profile.install), json(profile.customAttributes), json(profile.appliedSources),
      .real(profile.createdAt.timeIntervalSince1970), .real(profile.updatedAt.timeIntervalSince1970),
      json(profile.attribution), json(profile.purchases),
    ]
  }

  /// The ids of the profiles carrying this customer user id, oldest first.
  public func profileIds(appId: Int64, customerUserId: String, limit: Int) throws -> [String] {
    try with { db in
      try db.query(
        "SELECT id FROM profiles WHERE app_id = ? AND customer_user_id = ? ORDER BY created_at, id LIMIT ?",
        [.integer(appId), .text(customerUserId), .integer(Int64(limit))]
      ).map { try $0.decode("id") }
    }
  }
}

/// A profile's (app, id), grouping the assignments read for a page of profiles.
private struct Owner: Hashable {
  let appId: Int64
  let id: String
}
