import Foundation
import TollgateAPI

/// The install-cohort rollup: per install day, the profile's dimensions (storefront country,
/// Apple Ads campaign / ad group / keyword, first paywall variation shown), store environment,
/// currency and age, the changes `CohortContribution` derives. Each profile's current
/// contribution is kept (`stats_cohort_profiles`); when it is created or changed, first shown a
/// flow, attributed, or credited a transaction, it is recomputed and the difference applied, so a
/// rebuild from raw rows agrees exactly.
extension RelationalStore {
  static func rollCohort(_ db: any SQLConnection, appId: Int64, profile: String) throws {
    guard let (dimensions, changes) = try cohortFacts(db, appId: appId, profile: profile) else { return }
    let now = CohortContributionRows(dimensions: dimensions, rows: changes)
    let before: CohortContributionRows? = try storedContribution(
      db, table: "stats_cohort_profiles", idColumn: "profile_id", appId: appId, id: profile)
    guard before != now else { return }
    for (dimensions, where_, counters) in now.changes(from: before) {
      try bumpCohort(db, appId: appId, dimensions, where_, counters)
    }
    try saveContribution(db, table: "stats_cohort_profiles", idColumn: "profile_id", appId: appId, id: profile, now)
  }

  /// A flow view: the profile's cohort changes only if it is its first (or an earlier one).
  static func rollCohortView(_ db: any SQLConnection, appId: Int64, _ event: EventRecord) throws {
    let stored = try db.query(
      "SELECT dimensions FROM stats_cohort_profiles WHERE app_id = ? AND profile_id = ?",
      [.integer(appId), .text(event.profileId)]
    ).first
    if let stored {
      let dimensions = try WireCoding.decoder.decode(
        CohortDimensions.self, from: Data(try stored.decode("dimensions", as: String.self).utf8))
      if let first = dimensions.firstSeen, first <= event.receivedAt.timeIntervalSince1970 { return }
    }
    try rollCohort(db, appId: appId, profile: event.profileId)
  }

  /// A saved profile: its cohort changes only if its country did (one read otherwise).
  static func rollCohortCountry(_ db: any SQLConnection, appId: Int64, _ profile: ProfileRecord) throws {
    if let stored = try db.query(
      "SELECT dimensions FROM stats_cohort_profiles WHERE app_id = ? AND profile_id = ?",
      [.integer(appId), .text(profile.id)]
    ).first {
      let dimensions = try WireCoding.decoder.decode(
        CohortDimensions.self, from: Data(try stored.decode("dimensions", as: String.self).utf8))
      guard dimensions.country != (profile.install.storeCountry ?? "") else { return }
    }
    try rollCohort(db, appId: appId, profile: profile.id)
  }

  /// The profiles credited with these subscriptions' transactions.
  static func rollCohorts(_ db: any SQLConnection, appId: Int64, originals: [String]) throws {
    var profiles: Set<String> = []
    for original in originals {
      for row in try db.query(
        """
        SELECT DISTINCT attr_profile FROM app_store_transactions
        WHERE app_id = ? AND original_transaction_id = ? AND attr_profile IS NOT NULL
        """, [.integer(appId), .text(original)])
      {
        profiles.insert(try row.decode("attr_profile"))
      }
    }
    for profile in profiles.sorted() { try rollCohort(db, appId: appId, profile: profile) }
  }

  /// A profile's cohort dimensions and changes from its row, attribution, first view and transactions.
  static func cohortFacts(_ db: any SQLConnection, appId: Int64, profile: String) throws
    -> (CohortDimensions, [CohortAge: CohortCounters])?
  {
    let key: [SQLValue] = [.integer(appId), .text(profile)]
    guard
      let row = try db.query("SELECT created_at, install FROM profiles WHERE app_id = ? AND id = ?", key).first
    else { return nil }
    let install = try WireCoding.decoder.decode(InstallMeta.self, from: try row.decode("install"))
    var dimensions = CohortDimensions(
      installDay: StatsDay.of(Date(timeIntervalSince1970: try row.decode("created_at"))),
      country: install.storeCountry ?? "")
    if let ads = try db.query(
      "SELECT campaign_id, ad_group_id, keyword_id FROM stats_aa_profiles WHERE app_id = ? AND profile_id = ?", key
    ).first {
      dimensions.campaignId = try ads.decode("campaign_id")
      dimensions.adGroupId = try ads.decode("ad_group_id")
      dimensions.keywordId = try ads.decode("keyword_id")
    }
    if let first = try db.query(
      """
      SELECT variation_id, received_at FROM events WHERE app_id = ? AND profile_id = ?
      ORDER BY received_at, seq LIMIT 1
      """, key
    ).first {
      dimensions.variationId = try first.decode("variation_id")
      dimensions.firstSeen = try first.decode("received_at")
    }
    let transactions = try db.query(
      "SELECT payload FROM app_store_transactions WHERE app_id = ? AND attr_profile = ?", key
    ).map { try WireCoding.decoder.decode(TransactionPayload.self, from: try $0.decode("payload")) }
    return (dimensions, CohortContribution.changes(installDay: dimensions.installDay, transactions))
  }

  static func bumpCohort(
    _ db: any SQLConnection, appId: Int64, _ dimensions: CohortDimensions, _ where_: CohortAge,
    _ counters: CohortCounters
  ) throws {
    guard !counters.isZero else { return }
    let columns = CohortCounters.columns
    try db.query(
      """
      INSERT INTO stats_cohorts (app_id, install_day, country, campaign_id, ad_group_id, keyword_id, variation_id,
      environment, currency, age, \(columns.joined(separator: ", ")))
      VALUES (\(Array(repeating: "?", count: 10 + columns.count).joined(separator: ", ")))
      ON CONFLICT (app_id, install_day, country, campaign_id, ad_group_id, keyword_id, variation_id, environment,
      currency, age) DO UPDATE SET
      \(columns.map { "\($0) = stats_cohorts.\($0) + excluded.\($0)" }.joined(separator: ", "))
      """,
      [
        .integer(appId), .integer(dimensions.installDay), .text(dimensions.country), .integer(dimensions.campaignId),
        .integer(dimensions.adGroupId), .integer(dimensions.keywordId), .text(dimensions.variationId),
        .text(where_.environment), .text(where_.currency), .integer(where_.age),
      ] + counters.values.map(SQLValue.integer))
  }

  /// Every profile's contribution, recomputed from raw rows (the rebuild).
  static func rebuildCohorts(_ db: any SQLConnection, appId: Int64) throws {
    let profiles = try db.query("SELECT id FROM profiles WHERE app_id = ?", [.integer(appId)]).map {
      try $0.decode("id", as: String.self)
    }
    var totals: [CohortRow: CohortCounters] = [:]
    for profile in profiles {
      guard let (dimensions, changes) = try cohortFacts(db, appId: appId, profile: profile) else { continue }
      for (where_, counters) in changes {
        totals[CohortRow(dimensions: dimensions, where_: where_), default: CohortCounters()] =
          totals[CohortRow(dimensions: dimensions, where_: where_), default: CohortCounters()] + counters
      }
      try saveContribution(
        db, table: "stats_cohort_profiles", idColumn: "profile_id", appId: appId, id: profile,
        CohortContributionRows(dimensions: dimensions, rows: changes))
    }
    for (row, counters) in totals { try bumpCohort(db, appId: appId, row.dimensions, row.where_, counters) }
  }
}

/// What an installed profile is reported by: its install day, storefront country, Apple Ads
/// campaign / ad group / keyword (0: organic), and the first paywall variation it was shown.
struct CohortDimensions: Codable, Hashable {
  var installDay: Int64
  var country: String
  var campaignId: Int64 = 0
  var adGroupId: Int64 = 0
  var keywordId: Int64 = 0
  var variationId = ""
  /// When that first view was received (seconds), so later views need no recomputation.
  var firstSeen: Double?
}

/// A profile's contribution to `stats_cohorts`.
typealias CohortContributionRows = Contribution<CohortDimensions, CohortAge, CohortCounters>

private struct CohortRow: Hashable {
  var dimensions: CohortDimensions
  var where_: CohortAge
}
