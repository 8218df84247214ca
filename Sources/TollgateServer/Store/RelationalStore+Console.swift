import Foundation
import TollgateAPI

/// Attribution tokens of one app by what became of them.
public struct AttributionFunnel: Encodable, Sendable, Hashable {
  /// Every token accepted (one per profile and distinct token).
  public var received: Int64 = 0
  /// Still waiting for Apple.
  public var pending: Int64 = 0
  /// Apple answered `attribution: true` and the profile got it.
  public var applied: Int64 = 0
  /// Apple answered `attribution: false`.
  public var notAttributed: Int64 = 0
  /// Apple refused the token, or it never resolved.
  public var failed: Int64 = 0
  /// Developer-mode answers, not applied.
  public var testIgnored: Int64 = 0

  /// Resolved one way or another (derived, so it is only encoded).
  public var resolved: Int64 { received - pending }

  enum CodingKeys: String, CodingKey {
    case received, resolved, pending, applied, failed
    case notAttributed = "not_attributed"
    case testIgnored = "test_ignored"
  }

  public init() {}

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(received, forKey: .received)
    try container.encode(resolved, forKey: .resolved)
    try container.encode(pending, forKey: .pending)
    try container.encode(applied, forKey: .applied)
    try container.encode(notAttributed, forKey: .notAttributed)
    try container.encode(failed, forKey: .failed)
    try container.encode(testIgnored, forKey: .testIgnored)
  }
}

/// One variation's rollup counters on one UTC day.
public struct VariationDay: Codable, Sendable, Hashable {
  public var day: String
  public var audienceId: String
  public var variationId: String
  /// Profiles whose first view of the variation was this day.
  public var uniqueViewers: Int64
  public var impressions: Int64
  /// Profiles whose first credited purchase was this day.
  public var purchasers: Int64

  enum CodingKeys: String, CodingKey {
    case day, impressions, purchasers
    case audienceId = "audience_id"
    case variationId = "variation_id"
    case uniqueViewers = "unique_viewers"
  }
}

/// A profile's stored assignment to a variation.
public struct AssignmentRow: Codable, Sendable, Hashable {
  public var placementId: String
  public var audienceId: String
  public var variationId: String
  public var assignedAt: String

  enum CodingKeys: String, CodingKey {
    case placementId = "placement_id"
    case audienceId = "audience_id"
    case variationId = "variation_id"
    case assignedAt = "assigned_at"
  }
}

/// A `flow_shown` event as stored.
public struct EventRow: Codable, Sendable, Hashable {
  public var placementId: String
  public var audienceId: String
  public var variationId: String
  public var flowId: String
  public var receivedAt: String

  enum CodingKeys: String, CodingKey {
    case placementId = "placement_id"
    case audienceId = "audience_id"
    case variationId = "variation_id"
    case flowId = "flow_id"
    case receivedAt = "received_at"
  }
}

/// Reads for the console: small aggregates and one profile's rows, each from an index.
extension RelationalStore {
  /// The app's attribution tokens by status.
  public func attributionFunnel(appId: Int64) throws -> AttributionFunnel {
    try with { db in
      var funnel = AttributionFunnel()
      for row in try db.query(
        "SELECT status, COUNT(*) AS tokens FROM attribution_jobs WHERE app_id = ? GROUP BY status", [.integer(appId)])
      {
        let count = try row.decode("tokens", as: Int64.self)
        funnel.received += count
        switch AttributionStatus(rawValue: try row.decode("status")) {
        case .pending?: funnel.pending += count
        case .applied?: funnel.applied += count
        case .notAttributed?: funnel.notAttributed += count
        case .testIgnored?: funnel.testIgnored += count
        default: funnel.failed += count
        }
      }
      return funnel
    }
  }

  /// Transactions, gross and refunded amounts (milliunits) by currency over UTC days, every
  /// paywall and unattributed purchases together.
  public func revenueTotals(appId: Int64, days: ClosedRange<Int64>) throws -> [String: MoneyFigures] {
    try with { db in
      var totals: [String: MoneyFigures] = [:]
      for row in try db.query(
        """
        SELECT currency, CAST(SUM(gross) AS BIGINT) AS gross, CAST(SUM(refunded) AS BIGINT) AS refunded,
        CAST(SUM(transactions) AS BIGINT) AS transactions
        FROM stats_revenue WHERE app_id = ? AND day >= ? AND day <= ? GROUP BY currency
        """, [.integer(appId), .integer(days.lowerBound), .integer(days.upperBound)])
      {
        totals[try row.decode("currency")] = MoneyFigures(
          gross: try row.decode("gross"), refunded: try row.decode("refunded"),
          transactions: try row.decode("transactions"))
      }
      return totals
    }
  }

  /// A placement's counters per variation and day, oldest first (days without activity left out).
  public func placementDays(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationDay] {
    try with { db in
      try db.query(
        """
        SELECT day, audience_id, variation_id, viewers, impressions, purchasers FROM stats_daily
        WHERE app_id = ? AND placement_id = ? AND day >= ? AND day <= ? ORDER BY day, audience_id, variation_id
        """, [.integer(appId), .text(placementId), .integer(days.lowerBound), .integer(days.upperBound)]
      ).map { row in
        VariationDay(
          day: PlacementReport.isoDay(try row.decode("day")), audienceId: try row.decode("audience_id"),
          variationId: try row.decode("variation_id"), uniqueViewers: try row.decode("viewers"),
          impressions: try row.decode("impressions"), purchasers: try row.decode("purchasers"))
      }
    }
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
}
