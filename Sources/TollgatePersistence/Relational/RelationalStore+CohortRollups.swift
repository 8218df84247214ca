import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The install-cohort rollup: per segmentation (none, source, Apple Ads campaign / ad group /
/// keyword, first paywall variation shown, country), grouping of install days, environment,
/// currency and reported age, the changes `CohortContribution` derives. Each profile's current
/// contribution is kept (`stats_cohort_profiles`); when it is created or changed, first shown a
/// flow, attributed, or credited a transaction, it is recomputed and the difference applied, so a
/// rebuild from raw rows agrees exactly.
extension RelationalStore {
  /// Recomputes one profile's contribution and applies the difference — at once, or with
  /// `pending`'s other changes when the operation ends.
  static func rollCohort(_ db: any SQLConnection, appId: Int64, profile: String, pending: PendingRollups? = nil)
    throws
  {
    guard let (dimensions, changes) = try cohortFacts(db, appId: appId, profile: profile, pending: pending)
    else { return }
    let now = CohortContributionRows(dimensions: dimensions, rows: changes)
    let before: CohortContributionRows? = try storedContribution(
      db, .cohortContribution, appId: appId, id: profile, pending: pending)
    guard before != now else { return }
    let batch = pending ?? PendingRollups()
    for (dimensions, where_, counters) in now.changes(from: before) {
      CohortSegmentRow.add(dimensions, where_, counters, to: &batch.cohorts)
    }
    if pending == nil { try write(batch, db, appId: appId) }
    try saveContribution(
      db, table: "stats_cohort_profiles", idColumn: "profile_id", appId: appId, id: profile, now, pending: pending)
  }

  /// A flow view: the profile's cohort changes only if it is its first (or an earlier one).
  static func rollCohortView(_ db: any SQLConnection, appId: Int64, _ event: EventRecord, pending: PendingRollups)
    throws
  {
    let stored = try db.query(
      "SELECT dimensions FROM stats_cohort_profiles WHERE app_id = ? AND profile_id = ?",
      [.integer(appId), .text(event.profileId)]
    ).first
    if let stored {
      let dimensions = try WireCoding.decoder.decode(
        CohortDimensions.self, from: Data(try stored.decode("dimensions", as: String.self).utf8))
      if let first = dimensions.firstSeen, first <= event.receivedAt.timeIntervalSince1970 { return }
    }
    try rollCohort(db, appId: appId, profile: event.profileId, pending: pending)
  }

  /// A saved profile: its cohort changes only if its country did (one read otherwise).
  static func rollCohortCountry(
    _ db: any SQLConnection, appId: Int64, _ profile: ProfileRecord, pending: PendingRollups? = nil
  ) throws {
    if let stored = try db.query(
      "SELECT dimensions FROM stats_cohort_profiles WHERE app_id = ? AND profile_id = ?",
      [.integer(appId), .text(profile.id)]
    ).first {
      let dimensions = try WireCoding.decoder.decode(
        CohortDimensions.self, from: Data(try stored.decode("dimensions", as: String.self).utf8))
      guard dimensions.country != (profile.install.storeCountry ?? "") else { return }
    }
    try rollCohort(db, appId: appId, profile: profile.id, pending: pending)
  }

  /// The profiles credited with these subscriptions' transactions, in order.
  static func creditedProfiles(_ db: any SQLConnection, appId: Int64, originals: [String], pending: PendingRollups)
    throws -> [String]
  {
    var profiles: Set<String> = []
    for original in originals {
      // Deduplicated and filtered here, not in SQL: with DISTINCT or `attr_profile IS NOT NULL`
      // SQLite's planner walked the index by profile, every transaction of the app, to
      // skip a sort (2 ms a purchase at 12 000 transactions, growing with them).
      for row in try rollupRows(db, appId: appId, .subscriptionTransactions, original, pending: pending) {
        if let profile: String = try row.decode("attr_profile") { profiles.insert(profile) }
      }
    }
    return profiles.sorted()
  }

  /// A profile's cohort dimensions and changes from its row, attribution, first view and transactions.
  static func cohortFacts(_ db: any SQLConnection, appId: Int64, profile: String, pending: PendingRollups? = nil)
    throws -> (CohortDimensions, [CohortAge: CohortCounters])?
  {
    func rows(_ query: RollupQuery) throws -> [SQLRow] {
      try rollupRows(db, appId: appId, query, profile, pending: pending)
    }
    guard let row = try rows(.install).first else { return nil }
    let ads = try rows(.appleAdsInstall).first.map(appleAdsKey)
    // Kept apart from the raw events, which may expire.
    let firstView = try rows(.firstView).first.map { row in
      FirstView(
        variation: try row.decode("variation_id"), at: try row.decode("received_at"), seq: try row.decode("seq"))
    }
    var dimensions = try cohortDimensions(row, ads: ads, firstView: firstView)
    if try !rows(.imported).isEmpty { dimensions.imported = true }
    let transactions = try rows(.profileTransactions).map { try StoredPayloads.shared.payload($0) }
    return (dimensions, CohortContribution.changes(installDay: dimensions.installDay, transactions))
  }

  /// A profile's cohort dimensions from its row (`created_at`, `install`), Apple Ads keyword and
  /// first flow view.
  static func cohortDimensions(_ profile: SQLRow, ads: AppleAdsKey?, firstView: FirstView?) throws -> CohortDimensions {
    let install = try WireCoding.decoder.decode(InstallMeta.self, from: try profile.decode("install"))
    var dimensions = CohortDimensions(
      installDay: StatsDay.of(Date(timeIntervalSince1970: try profile.decode("created_at"))),
      country: install.storeCountry ?? "")
    if let ads {
      dimensions.campaignId = ads.campaign
      dimensions.adGroupId = ads.adGroup
      dimensions.keywordId = ads.keyword
    }
    if let firstView {
      dimensions.variationId = firstView.variation
      dimensions.firstSeen = firstView.at
    }
    return dimensions
  }

  /// Adds `rows` to `stats_cohort_segments`.
  static func bumpCohortSegments(_ db: any SQLConnection, appId: Int64, _ rows: [CohortSegmentRow: CohortCounters])
    throws
  {
    try bumpCounters(
      db, table: "stats_cohort_segments", appId: appId,
      keys: ["segment", "grain", "period", "value", "environment", "currency", "age"],
      counters: CohortCounters.columns,
      rows.sorted { $0.key < $1.key }.map { row, counters in
        (
          [
            .text(row.segment), .text(row.grain), .integer(row.period), .text(row.value), .text(row.environment),
            .text(row.currency), .integer(row.age),
          ], counters.values
        )
      })
  }

  /// Every profile's contribution, recomputed from the rebuild's reading of the raw rows: the
  /// transactions credited to each profile, its Apple Ads keyword and first flow view, and (read
  /// here) the profiles themselves.
  static func rebuildCohorts(
    _ db: any SQLConnection, appId: Int64, _ byProfile: [String: [TransactionPayload]], ads: [String: AppleAdsKey],
    firstViews: [String: FirstView]
  ) throws {
    var totals: [CohortSegmentRow: CohortCounters] = [:]
    var contributions: [[SQLValue]] = []
    let imported = Set(
      try db.query("SELECT profile_id FROM imported_profiles WHERE app_id = ?", [.integer(appId)]).map {
        try $0.decode("profile_id", as: String.self)
      })
    for row in try db.query("SELECT id, created_at, install FROM profiles WHERE app_id = ?", [.integer(appId)]) {
      let profile = try row.decode("id", as: String.self)
      var dimensions = try cohortDimensions(row, ads: ads[profile], firstView: firstViews[profile])
      if imported.contains(profile) { dimensions.imported = true }
      let changes = CohortContribution.changes(installDay: dimensions.installDay, byProfile[profile] ?? [])
      for (where_, counters) in changes { CohortSegmentRow.add(dimensions, where_, counters, to: &totals) }
      let contribution = CohortContributionRows(dimensions: dimensions, rows: changes)
      contributions.append([.integer(appId), .text(profile), json(contribution.dimensions), contribution.storedRows])
      if contributions.count == 20_000 {
        try insertRows(
          db, table: "stats_cohort_profiles", columns: "app_id, profile_id, dimensions, changes", contributions)
        contributions = []
      }
    }
    try insertRows(
      db, table: "stats_cohort_profiles", columns: "app_id, profile_id, dimensions, changes", contributions)
    try bumpCohortSegments(db, appId: appId, totals)
  }
}

/// A profile's contribution to the install cohorts (`stats_cohort_segments`).
typealias CohortContributionRows = Contribution<CohortDimensions, CohortAge, CohortCounters>

/// One row of `stats_cohort_segments`: a segmentation and its value, a grouping of install days
/// and the period's first day, the environment, currency and reported age. Each change of a
/// profile's cohort lands in one row per stored segmentation (`Segment.storedValue`) and
/// grouping, so a report reads rows as many as its cohorts × ages, however many profiles and
/// dimensions there are.
struct CohortSegmentRow: Hashable, Comparable {
  var segment: String
  var grain: String
  var period: Int64
  var value: String
  var environment: String
  var currency: String
  var age: Int64

  /// The key's columns in order (the order every writer takes the rows' locks in), each
  /// compared once: a round of imported histories sorts thousands of these.
  static func < (a: Self, b: Self) -> Bool {
    if a.segment != b.segment { return a.segment < b.segment }
    if a.grain != b.grain { return a.grain < b.grain }
    if a.period != b.period { return a.period < b.period }
    if a.value != b.value { return a.value < b.value }
    if a.environment != b.environment { return a.environment < b.environment }
    if a.currency != b.currency { return a.currency < b.currency }
    return a.age < b.age
  }

  /// Adds one change of a profile's contribution to every row it counts in (none after the
  /// last reported age: no figure sums that far).
  static func add(
    _ install: CohortDimensions, _ where_: CohortAge, _ counters: CohortCounters, to rows: inout [Self: CohortCounters]
  ) {
    guard let age = CohortReport.bucket(where_.age) else { return }
    // Each segment's value once, not once per grouping (some are made by interpolation); the
    // segmentations read from others' rows are not written (`storedValue`).
    let values = CohortReport.Segment.allCases.compactMap { segment in
      segment.storedValue(install).map { (segment.rawValue, $0) }
    }
    for grouping in SubscriptionReport.Grouping.allCases {
      let period = SubscriptionReport.periodStart(install.installDay, grouping)
      for (segment, value) in values {
        let row = Self(
          segment: segment, grain: grouping.rawValue, period: period, value: value,
          environment: where_.environment, currency: where_.currency, age: age)
        // One lookup (the key hashes five strings), not a read and then a write.
        rows[row, default: CohortCounters()] += counters
      }
    }
  }
}
