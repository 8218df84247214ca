import Foundation
import TollgateDomain
import TollgateSupport

/// A read the rollups make for one subscription or one profile: the rows of `table` whose
/// `key` column is that entity's id (and `filter` holds). Defined once, so the read of one
/// entity and the read of many at once (`RollupReads`) select the same columns.
struct RollupQuery: Hashable {
  let table: String
  let key: String
  let columns: String
  var filter = ""

  /// A subscription's transactions with the paywall and profile each is credited to.
  static let subscriptionTransactions = RollupQuery(
    table: "app_store_transactions", key: "original_transaction_id",
    columns: "payload, attr_placement, attr_audience, attr_variation, attr_profile")
  /// A subscription's failed renewals (billing retry or grace period).
  static let renewalFailures = RollupQuery(
    table: "app_store_notifications", key: "original_transaction_id", columns: "signed_at, subtype",
    filter: "AND notification_type = 'DID_FAIL_TO_RENEW'")
  /// A subscription's trial facts as counted (`stats_trials`).
  static let trial = RollupQuery(
    table: "stats_trials", key: "original_transaction_id",
    columns: "placement_id, audience_id, variation_id, trial_day, converted_day")
  /// A subscription's contribution to the subscription series (`stats_subscriptions`).
  static let subscriptionContribution = RollupQuery(
    table: "stats_subscriptions", key: "original_transaction_id", columns: "dimensions, changes")
  /// A profile's install day and metadata.
  static let install = RollupQuery(table: "profiles", key: "id", columns: "created_at, install")
  /// A profile's Apple Ads install (`stats_aa_profiles`).
  static let appleAdsInstall = RollupQuery(
    table: "stats_aa_profiles", key: "profile_id", columns: "day, campaign_id, ad_group_id, keyword_id, purchaser")
  /// A profile's first flow view.
  static let firstView = RollupQuery(
    table: "profile_first_views", key: "profile_id", columns: "variation_id, received_at, seq")
  /// Whether a profile came with an import (a row, or none).
  static let imported = RollupQuery(table: "imported_profiles", key: "profile_id", columns: "profile_id")
  /// The transactions credited to a profile.
  static let profileTransactions = RollupQuery(table: "app_store_transactions", key: "attr_profile", columns: "payload")
  /// A profile's contribution to the install cohorts (`stats_cohort_profiles`).
  static let cohortContribution = RollupQuery(
    table: "stats_cohort_profiles", key: "profile_id", columns: "dimensions, changes")

  /// The statement reading one entity's rows (the app, then its id).
  var one: String { "SELECT \(columns) FROM \(table) WHERE app_id = ? AND \(key) = ? \(filter)" }

  /// The statement reading `count` entities' rows, each with its id as `rollup_key` (the app,
  /// then their ids).
  func many(_ count: Int) -> String {
    "SELECT \(key) AS rollup_key, \(columns) FROM \(table) WHERE app_id = ? "
      + "AND \(key) IN (\(StatementRanges.placeholders(count))) \(filter)"
  }

  /// The reads `rollTrial` and `rollSubscription` make per subscription.
  static let perSubscription: [RollupQuery] = [
    subscriptionTransactions, renewalFailures, trial, subscriptionContribution,
  ]
  /// The reads `rollCohort` makes per profile.
  static let perProfile: [RollupQuery] = [
    install, appleAdsInstall, firstView, imported, profileTransactions, cohortContribution,
  ]
}

/// Rows of `RollupQuery`s read for many subscriptions or profiles at once, a few statements for
/// a batch instead of several per entity: on PostgreSQL each statement is a round trip, and
/// a thousand renewals spent most of their time waiting on them (the machine half idle).
/// Read just before the entities are recomputed and forgotten just after, so nothing written
/// between is missed.
final class RollupReads {
  private var read: [RollupQuery: [String: [SQLRow]]] = [:]

  /// Reads `queries` for every key, up to 512 keys a statement.
  func prefetch(_ db: any SQLConnection, appId: Int64, _ queries: [RollupQuery], keys: [String]) throws {
    let keys = Array(Set(keys)).sorted()
    guard !keys.isEmpty else { return }
    for query in queries {
      var rows = read[query] ?? [:]
      for key in keys { rows[key] = [] }
      for range in StatementRanges.split(keys.count, limit: 512) {
        // Unnamed, planned with its values: a generic plan made while a table was small
        // walked every row of the app (see `PostgresConnection.lookup`).
        let found = try db.lookup(query.many(range.count), [.integer(appId)] + keys[range].map(SQLValue.text))
        for row in found { rows[try row.decode("rollup_key", as: String.self), default: []].append(row) }
      }
      read[query] = rows
    }
  }

  /// The rows of `query` for `key`: as read at once, or from the database when they were not.
  func rows(_ db: any SQLConnection, appId: Int64, _ query: RollupQuery, _ key: String) throws -> [SQLRow] {
    if let known = read[query]?[key] { return known }
    return try Self.rows(db, appId: appId, query, key)
  }

  /// The rows of `query` for `key`, read from the database.
  static func rows(_ db: any SQLConnection, appId: Int64, _ query: RollupQuery, _ key: String) throws -> [SQLRow] {
    try db.query(query.one, [.integer(appId), .text(key)])
  }

  /// Forgets every row read: the entities were recomputed and may have been written since.
  func forget() { read = [:] }
}
