import Foundation
import TollgateAPI

/// `EventRepository` on SQL: flows shown (counted once per client id) and first-launch reports.
extension RelationalStore {
  public func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int {
    try with { db in
      try db.transaction {
        var inserted = 0
        let pending = PendingRollups()
        for event in events {
          try db.query(
            """
            INSERT INTO events (app_id, event_id, profile_id, placement_id, audience_id,
            variation_id, flow_id, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """,
            [
              .integer(appId), event.eventId.map(SQLValue.text) ?? .null, .text(event.profileId),
              .text(event.placementId), .text(event.audienceId), .text(event.variationId),
              .text(event.flowId), .real(event.receivedAt.timeIntervalSince1970),
            ])
          guard db.changes == 1 else { continue }
          inserted += 1
          try Self.rollImpression(db, appId: appId, event, pending: pending)
          try Self.rollCohortView(db, appId: appId, event, pending: pending)
        }
        try Self.write(pending, db, appId: appId)
        return inserted
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
        try Self.bumpAppleAds(
          db, appId: appId,
          AppleAdsKey(
            day: try row.decode("day"), campaign: try row.decode("campaign_id"),
            adGroup: try row.decode("ad_group_id"), keyword: try row.decode("keyword_id")),
          flowInTime: 1)
      }
    }
  }
}
