import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `AnalyticsRepository` on SQL: the reports' reads, from the rollups.
extension RelationalStore {
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

  public func placementStats(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationCounts] {
    try with { db in
      let range: [SQLValue] = [
        .integer(appId), .text(placementId), .integer(days.lowerBound), .integer(days.upperBound),
      ]
      var rows: [String: VariationCounts] = [:]
      for row in try db.query(
        """
        SELECT audience_id, variation_id, CAST(SUM(impressions) AS BIGINT) AS impressions,
        CAST(SUM(viewers) AS BIGINT) AS viewers, CAST(SUM(purchasers) AS BIGINT) AS purchasers,
        CAST(SUM(trials) AS BIGINT) AS trials, CAST(SUM(trial_conversions) AS BIGINT) AS trial_conversions,
        CAST(SUM(refunds) AS BIGINT) AS refunds
        FROM stats_daily WHERE app_id = ? AND placement_id = ? AND day >= ? AND day <= ?
        GROUP BY audience_id, variation_id
        """, range)
      {
        var counts = VariationCounts(
          placementId: placementId, audienceId: try row.decode("audience_id"),
          variationId: try row.decode("variation_id"))
        counts.impressions = try row.decode("impressions")
        counts.viewers = try row.decode("viewers")
        counts.purchasers = try row.decode("purchasers")
        counts.trials = try row.decode("trials")
        counts.trialConversions = try row.decode("trial_conversions")
        counts.refunds = try row.decode("refunds")
        rows[counts.variationId] = counts
      }
      // A row of a per-currency rollup, added to its variation's counts.
      func change(_ row: SQLRow, _ apply: (inout VariationCounts) throws -> Void) throws {
        let variation = try row.decode("variation_id", as: String.self)
        var counts =
          try rows[variation]
          ?? VariationCounts(
            placementId: placementId, audienceId: try row.decode("audience_id"), variationId: variation)
        try apply(&counts)
        rows[variation] = counts
      }
      for row in try db.query(
        """
        SELECT audience_id, variation_id, currency, CAST(SUM(gross) AS BIGINT) AS gross,
        CAST(SUM(refunded) AS BIGINT) AS refunded, CAST(SUM(transactions) AS BIGINT) AS transactions
        FROM stats_revenue WHERE app_id = ? AND placement_id = ? AND day >= ? AND day <= ?
        GROUP BY audience_id, variation_id, currency
        """, range)
      {
        try change(row) { counts in
          counts.revenue[try row.decode("currency")] = MoneyFigures(
            gross: try row.decode("gross"), refunded: try row.decode("refunded"),
            transactions: try row.decode("transactions"))
        }
      }
      for row in try db.query(
        """
        SELECT audience_id, variation_id, currency, CAST(SUM(payers) AS BIGINT) AS payers,
        CAST(SUM(net) AS BIGINT) AS net, CAST(SUM(log_sum) AS BIGINT) AS log_sum,
        CAST(SUM(log_squares) AS BIGINT) AS log_squares
        FROM stats_payer_revenue WHERE app_id = ? AND placement_id = ? AND day >= ? AND day <= ?
        GROUP BY audience_id, variation_id, currency
        """, range)
      {
        try change(row) { counts in
          counts.payers[try row.decode("currency")] = PayerMoments(
            payers: try row.decode("payers"), net: try row.decode("net"), logSum: try row.decode("log_sum"),
            logSquares: try row.decode("log_squares"))
        }
      }
      return rows.values.sorted { ($0.audienceId, $0.variationId) < ($1.audienceId, $1.variationId) }
    }
  }

  public func cohortRows(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String
  ) throws -> [CohortTotals] {
    try readCohorts(installDays: installDays, by: grouping) { db, grain, periods in
      try segment.storedReads.flatMap { read in
        let values = read.value.map { [SQLValue.text($0)] } ?? []
        return try db.query(
          Self.cohortStatement(periods: nil, values: read.value == nil ? nil : 1),
          [
            .integer(appId), .text(read.segment.rawValue), .text(grain.rawValue), .integer(periods.lowerBound),
            .integer(periods.upperBound),
          ] + values + [.text(environment)]
        ).map { read.labelled(try Self.cohortTotals($0)) }
      }
    }
  }

  public func cohortRows(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String, values: Set<String>
  ) throws -> [CohortTotals] {
    guard !values.isEmpty else { return [] }
    return try readCohorts(installDays: installDays, by: grouping) { db, grain, periods in
      let starts = SubscriptionReport.periodStarts(periods, grain).map(SQLValue.integer)
      return try segment.storedReads.flatMap { read -> [CohortTotals] in
        // A read answering for one segment is made only when that segment is asked for.
        if let answers = read.answers, !values.contains(answers) { return [] }
        let picked = (read.value.map { [$0] } ?? (read.label == nil ? values.sorted() : [])).map(SQLValue.text)
        return try db.query(
          Self.cohortStatement(periods: starts.count, values: picked.isEmpty ? nil : picked.count),
          [.integer(appId), .text(read.segment.rawValue), .text(grain.rawValue)] + starts + picked
            + [.text(environment)]
        ).map { read.labelled(try Self.cohortTotals($0)) }
      }
    }
  }

  public func cohortSegmentInstalls(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String
  ) throws -> [String: Int64] {
    let rows = try readCohorts(installDays: installDays, by: grouping) { db, grain, periods in
      try segment.storedReads.flatMap { read in
        try db.query(
          Self.cohortRanking(value: read.value != nil),
          [
            .integer(appId), .text(read.segment.rawValue), .text(grain.rawValue), .integer(periods.lowerBound),
            .integer(periods.upperBound),
          ] + (read.value.map { [SQLValue.text($0)] } ?? []) + [.text(environment)]
        ).map { row in
          (try read.label ?? row.decode("value", as: String.self), try row.decode("installs", as: Int64.self))
        }
      }
    }
    return Dictionary(rows, uniquingKeysWith: +).filter { $0.value > 0 }
  }

  /// One report's reads along its plan (`CohortReport.readPlan`) on one connection: `read` over
  /// the whole periods at the grouping's grain, then over the days of the periods the range cuts.
  private func readCohorts<Row>(
    installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    _ read: (any SQLConnection, SubscriptionReport.Grouping, ClosedRange<Int64>) throws -> [Row]
  ) throws -> [Row] {
    let plan = CohortReport.readPlan(installDays: installDays, by: grouping)
    return try with { db in
      var rows = try plan.periods.map { try read(db, grouping, $0) } ?? []
      for days in plan.days { rows += try read(db, .day, days) }
      return rows
    }
  }

  /// Installs per value of a segmentation over periods (of one value only, `value`): the
  /// ranking behind `top`, read from the install rows' index (`stats_cohort_installs`; the
  /// literals name its condition).
  static func cohortRanking(value: Bool) -> String {
    """
    SELECT value, CAST(SUM(installs) AS BIGINT) AS installs FROM stats_cohort_segments
    WHERE app_id = ? AND segment = ? AND grain = ? AND period >= ? AND period <= ?\(value ? " AND value = ?" : "")
    AND environment IN ('', ?) AND currency = '' AND age = 0 GROUP BY value
    """
  }

  /// The statement summing one segmentation's cohort rows per period, value, currency and age:
  /// over a range of periods (bound as first and last), or, given so many `periods`, those
  /// periods' rows only, each found through the primary key instead of read among every value
  /// of the range; of so many `values` only, when given.
  static func cohortStatement(periods: Int?, values: Int?) -> String {
    func list(_ count: Int) -> String { "(\(Array(repeating: "?", count: count).joined(separator: ", ")))" }
    let range = periods.map { "period IN \(list($0))" } ?? "period >= ? AND period <= ?"
    return """
      SELECT period, value, currency, age,
      \(CohortCounters.columns.map { "CAST(SUM(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", "))
      FROM stats_cohort_segments WHERE app_id = ? AND segment = ? AND grain = ?
      AND \(range)\(values.map { " AND value IN \(list($0))" } ?? "")
      AND environment IN ('', ?) GROUP BY period, value, currency, age
      """
  }

  private static func cohortTotals(_ row: SQLRow) throws -> CohortTotals {
    CohortTotals(
      start: try row.decode("period"), segment: try row.decode("value"), currency: try row.decode("currency"),
      age: try row.decode("age"),
      counters: CohortCounters(values: try CohortCounters.columns.map { try row.decode($0) }))
  }

  public func subscriptionDays(appId: Int64, days: ClosedRange<Int64>, filters: SubscriptionFilters) throws
    -> [SubscriptionDayTotals]
  {
    let (table, filter, values) = Self.subscriptionFilter(appId: appId, filters)
    let columns = SubscriptionCounters.columns
    return try with { db in
      let opening = try db.query(
        Self.openingStocks(table: table, filter: filter), values + [.integer(days.lowerBound)]
      ).map { row in
        var counters = SubscriptionCounters()
        counters.active = try row.decode("active_delta")
        counters.trials = try row.decode("trials_delta")
        counters.mrr = try row.decode("mrr_delta")
        return SubscriptionDayTotals(day: days.lowerBound - 1, currency: try row.decode("currency"), counters: counters)
      }
      return try opening
        + db.query(
          """
          SELECT day, currency, \(columns.map { "CAST(SUM(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", "))
          FROM \(table) WHERE \(filter) AND day >= ? AND day <= ? GROUP BY day, currency ORDER BY day, currency
          """, values + [.integer(days.lowerBound), .integer(days.upperBound)]
        ).map { row in
          SubscriptionDayTotals(
            day: try row.decode("day"), currency: try row.decode("currency"),
            counters: SubscriptionCounters(values: try columns.map { try row.decode($0) }))
        }
    }
  }

  /// The table a subscription series reads and its `WHERE` clause with values: without a filter
  /// the day's totals (one row per day and currency), else the per-dimension rows.
  static func subscriptionFilter(appId: Int64, _ filters: SubscriptionFilters) -> (
    table: String, filter: String, values: [SQLValue]
  ) {
    var conditions = ["app_id = ?", "environment = ?"]
    var values: [SQLValue] = [.integer(appId), .text(filters.environment)]
    let texts: [(String, String?)] = [
      ("product_id", filters.productId), ("storefront", filters.storefront), ("placement_id", filters.placementId),
      ("audience_id", filters.audienceId), ("variation_id", filters.variationId), ("origin", filters.origin),
    ]
    for case (let column, let value?) in texts {
      conditions.append("\(column) = ?")
      values.append(.text(value))
    }
    let numbers: [(String, Int64?)] = [
      ("campaign_id", filters.campaignId), ("ad_group_id", filters.adGroupId), ("keyword_id", filters.keywordId),
    ]
    for case (let column, let value?) in numbers {
      conditions.append("\(column) = ?")
      values.append(.integer(value))
    }
    let table = conditions.count == 2 ? "stats_subscription_totals" : "stats_subscription_days"
    return (table, conditions.joined(separator: " AND "), values)
  }

  /// Before a series' range only the stocks matter (active subscriptions, trials, MRR): summed
  /// in one row per currency, dated the day before the range (the range's first day is bound last).
  static func openingStocks(table: String, filter: String) -> String {
    let stocks = ["active_delta", "trials_delta", "mrr_delta"]
    return """
      SELECT currency, \(stocks.map { "CAST(SUM(\($0)) AS BIGINT) AS \($0)" }.joined(separator: ", "))
      FROM \(table) WHERE \(filter) AND day < ? GROUP BY currency ORDER BY currency
      """
  }

  public func appleAdsStats(appId: Int64, days: ClosedRange<Int64>, by grouping: AppleAdsGrouping) throws
    -> [AppleAdsCounts]
  {
    let columns: String
    switch grouping {
    case .campaign: columns = "campaign_id"
    case .adGroup: columns = "campaign_id, ad_group_id"
    case .keyword: columns = "campaign_id, ad_group_id, keyword_id"
    }
    func key(_ row: SQLRow) throws -> AppleAdsCounts {
      AppleAdsCounts(
        campaignId: try row.decode("campaign_id"),
        adGroupId: grouping == .campaign ? nil : try row.decode("ad_group_id"),
        keywordId: grouping == .keyword ? try row.decode("keyword_id") : nil)
    }
    return try with { db in
      let range: [SQLValue] = [.integer(appId), .integer(days.lowerBound), .integer(days.upperBound)]
      var rows: [AppleAdsCounts] = []
      var index: [AppleAdsCounts: Int] = [:]
      for row in try db.query(
        """
        SELECT \(columns), CAST(SUM(installs) AS BIGINT) AS installs, CAST(SUM(flow_in_time) AS BIGINT) AS flow_in_time,
        CAST(SUM(purchasers) AS BIGINT) AS purchasers
        FROM stats_apple_ads WHERE app_id = ? AND day >= ? AND day <= ? GROUP BY \(columns) ORDER BY \(columns)
        """, range)
      {
        var counts = try key(row)
        index[counts] = rows.count
        counts.installs = try row.decode("installs")
        counts.flowInTime = try row.decode("flow_in_time")
        counts.purchasers = try row.decode("purchasers")
        rows.append(counts)
      }
      for row in try db.query(
        """
        SELECT \(columns), currency, CAST(SUM(gross) AS BIGINT) AS gross FROM stats_apple_ads_revenue
        WHERE app_id = ? AND day >= ? AND day <= ? GROUP BY \(columns), currency
        """, range)
      {
        guard let position = index[try key(row)] else { continue }
        rows[position].revenue[try row.decode("currency")] = try row.decode("gross")
      }
      return rows
    }
  }
}
