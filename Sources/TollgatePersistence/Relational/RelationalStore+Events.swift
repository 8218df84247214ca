import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `EventRepository` on SQL: flows shown (counted once per client id) and first-launch reports.
extension RelationalStore {
  public func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int {
    // Outside the transaction: making a partition locks the table for a moment.
    try eventMonths?.prepare(for: events.map(\.receivedAt), on: pool)
    return try with { db in
      try db.transaction {
        var inserted = 0
        let pending = PendingRollups()
        for event in events {
          // Partitioned, the views cannot hold a unique index of client ids: a table of them does.
          if eventMonths != nil, let eventId = event.eventId {
            try db.query(
              "INSERT INTO event_ids (app_id, event_id, received_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
              [.integer(appId), .text(eventId), .real(event.receivedAt.timeIntervalSince1970)])
            guard db.changes == 1 else { continue }
          }
          guard
            let row = try db.query(
              """
              INSERT INTO events (app_id, event_id, profile_id, placement_id, audience_id,
              variation_id, flow_id, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT DO NOTHING RETURNING seq
              """,
              [
                .integer(appId), event.eventId.map(SQLValue.text) ?? .null, .text(event.profileId),
                .text(event.placementId), .text(event.audienceId), .text(event.variationId),
                .text(event.flowId), .real(event.receivedAt.timeIntervalSince1970),
              ]
            ).first
          else { continue }
          inserted += 1
          try Self.keepFirstView(db, appId: appId, event, seq: try row.decode("seq"))
          try Self.rollImpression(db, appId: appId, event, pending: pending)
          try Self.rollCohortView(db, appId: appId, event, pending: pending)
        }
        try Self.write(pending, db, appId: appId)
        return inserted
      }
    }
  }

  /// Keeps the profile's first view (earliest by time, then by order of arrival), which the
  /// cohort report reads and which outlives the raw events.
  static func keepFirstView(_ db: any SQLConnection, appId: Int64, _ event: EventRecord, seq: Int64) throws {
    try db.query(
      """
      INSERT INTO profile_first_views (app_id, profile_id, variation_id, received_at, seq) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (app_id, profile_id) DO UPDATE SET
        variation_id = excluded.variation_id, received_at = excluded.received_at, seq = excluded.seq
      WHERE excluded.received_at < profile_first_views.received_at
        OR (excluded.received_at = profile_first_views.received_at AND excluded.seq < profile_first_views.seq)
      """,
      [
        .integer(appId), .text(event.profileId), .text(event.variationId),
        .real(event.receivedAt.timeIntervalSince1970), .integer(seq),
      ])
  }

  public func expireEvents(before cutoff: Date, limit: Int) throws -> Int {
    try with { db in
      try db.transaction {
        let rows = try db.query(
          "SELECT seq, app_id FROM events WHERE received_at < ? ORDER BY received_at, seq LIMIT ?",
          [.real(cutoff.timeIntervalSince1970), .integer(Int64(limit))])
        guard !rows.isEmpty else { return 0 }
        var apps: Set<Int64> = []
        var seqs: [SQLValue] = []
        for row in rows {
          seqs.append(.integer(try row.decode("seq")))
          apps.insert(try row.decode("app_id"))
        }
        let marks = Array(repeating: "?", count: seqs.count).joined(separator: ", ")
        try db.query("DELETE FROM events WHERE seq IN (\(marks))", seqs)
        for app in apps.sorted() {
          try db.query(
            """
            INSERT INTO events_expired (app_id, expired_before) VALUES (?, ?)
            ON CONFLICT (app_id) DO UPDATE SET expired_before = excluded.expired_before
            WHERE excluded.expired_before > events_expired.expired_before
            """, [.integer(app), .real(cutoff.timeIntervalSince1970)])
        }
        return rows.count
      }
    }
  }

  public func dropExpiredEventMonths(before cutoff: Date) throws -> Int {
    guard let eventMonths else { return 0 }
    let months = try with { db in
      try db.query(
        """
        SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
        WHERE pg_inherits.inhparent = 'events'::regclass
        """
      ).compactMap { EventMonths.month(ofTable: try $0.decode("name")) }
    }
    var dropped = 0
    for month in months.sorted() where EventMonths.start(of: month + 1) <= cutoff {
      let end = EventMonths.start(of: month + 1).timeIntervalSince1970
      let table = EventMonths.table(of: month)
      dropped += try with { db in
        try db.transaction {
          let rows = try db.query("SELECT app_id, COUNT(*) AS views FROM \(table) GROUP BY app_id")
          for row in rows {
            try db.query(
              """
              INSERT INTO events_expired (app_id, expired_before) VALUES (?, ?)
              ON CONFLICT (app_id) DO UPDATE SET expired_before = excluded.expired_before
              WHERE excluded.expired_before > events_expired.expired_before
              """, [.integer(try row.decode("app_id")), .real(end)])
          }
          try db.execute("DROP TABLE \(table)")
          return try rows.reduce(0) { $0 + Int(try $1.decode("views", as: Int64.self)) }
        }
      }
      eventMonths.dropped(month)
    }
    // Client ids only de-duplicate views the retention still keeps.
    while try with({ db in
      try db.query(
        "DELETE FROM event_ids WHERE ctid IN (SELECT ctid FROM event_ids WHERE received_at < ? LIMIT 10000)",
        [.real(cutoff.timeIntervalSince1970)])
      return db.changes
    }) == 10_000 {}
    return dropped
  }

  public func eventsExpiredBefore(appId: Int64) throws -> Date? {
    try with { db in
      try db.query("SELECT expired_before FROM events_expired WHERE app_id = ?", [.integer(appId)]).first.map {
        Date(timeIntervalSince1970: try $0.decode("expired_before"))
      }
    }
  }

  /// The profile's latest `flow_shown` events, newest first.
  public func recentEvents(appId: Int64, profileId: String, limit: Int) throws -> [EventRow] {
    try with { db in
      try db.query(
        """
        SELECT placement_id, audience_id, variation_id, flow_id, received_at FROM events
        WHERE app_id = ? AND profile_id = ? ORDER BY received_at DESC, seq DESC LIMIT ?
        """, [.integer(appId), .text(profileId), .integer(Int64(limit))]
      ).map { row in
        EventRow(
          placementId: try row.decode("placement_id"), audienceId: try row.decode("audience_id"),
          variationId: try row.decode("variation_id"), flowId: try row.decode("flow_id"),
          receivedAt: Timestamp.string(try row.decode("received_at")))
      }
    }
  }

  public func recordFirstLaunch(appId: Int64, profileId: String, aaFlowInTime: Bool, at: Date) throws {
    try with { db in
      try db.transaction {
        try db.query(
          """
          INSERT INTO first_launch_reports (app_id, profile_id, aa_flow_in_time, reported_at) VALUES (?, ?, ?, ?)
          ON CONFLICT DO NOTHING
          """, [.integer(appId), .text(profileId), .integer(aaFlowInTime ? 1 : 0), .real(at.timeIntervalSince1970)])
        guard db.changes == 1, aaFlowInTime,
          let row = try db.query(
            "SELECT day, campaign_id, ad_group_id, keyword_id, flow_in_time FROM stats_aa_profiles WHERE app_id = ? AND profile_id = ?",
            [.integer(appId), .text(profileId)]
          ).first, try row.decode("flow_in_time", as: Int64.self) == 0
        else { return }
        try db.query(
          "UPDATE stats_aa_profiles SET flow_in_time = 1 WHERE app_id = ? AND profile_id = ?",
          [.integer(appId), .text(profileId)])
        var changes = AppleAdsProjection.Changes()
        AppleAdsProjection.flowInTime(
          AppleAdsKey(
            day: try row.decode("day"), campaign: try row.decode("campaign_id"),
            adGroup: try row.decode("ad_group_id"), keyword: try row.decode("keyword_id")),
          into: &changes)
        try Self.apply(changes, db, appId: appId)
      }
    }
  }
}
