import Foundation
import TollgateDomain
import TollgateSupport

/// Rollup changes gathered over one store operation and written once, before it commits: a
/// batch that changes the same rollup row many times (a thousand profiles installed the same day,
/// a thousand renewals on one day, two thousand views of one paywall) writes it once. On PostgreSQL every update of a row inside one
/// transaction leaves a version the next update must step over, so row by row a large batch
/// slowed quadratically.
final class PendingRollups {
  var cohorts: [CohortSegmentRow: CohortCounters] = [:]
  var subscriptionDays: [SubscriptionRow: SubscriptionCounters] = [:]
  /// `stats_daily`, `stats_revenue` and `stats_payer_revenue` by paywall and day.
  var placement = PlacementProjection.Changes()
  /// `stats_apple_ads` and `stats_apple_ads_revenue` by keyword and day.
  var appleAds = AppleAdsProjection.Changes()
  /// Each profile's Apple Ads install (`stats_aa_profiles`) as read or written in the unit, nil
  /// for a profile not from Apple Ads: a batch of one buyer's renewals reads it once.
  var appleAdsProfiles: [String: AppleAdsProfile?] = [:]
  /// Rows the rollups read, read for many subscriptions or profiles at once.
  let reads = RollupReads()
  /// Contributions recomputed in a batch, by table and entity, written together when it ends
  /// (`writeContributions`); nil: each is written when it is recomputed.
  var contributions: [String: KeptContributions]?

  /// The contributions kept for one table: its entity column and each entity's row.
  struct KeptContributions {
    var idColumn: String
    var rows: [String: [SQLValue]] = [:]
  }

  /// A profile's Apple Ads install: its group, and whether it has bought.
  struct AppleAdsProfile {
    var group: AppleAdsKey
    var purchaser: Bool
  }
}

extension RelationalStore {
  /// Writes what `pending` gathered and empties it. Every writer of shared rollup rows writes
  /// them here, table by table in this order and each table's rows in key order, so two units
  /// of work that touch the same rows wait for each other instead of deadlocking.
  static func write(_ pending: PendingRollups, _ db: any SQLConnection, appId: Int64) throws {
    try bumpCohortSegments(db, appId: appId, pending.cohorts)
    try bumpSubscriptionDays(
      db, appId: appId, pending.subscriptionDays.map { ($0.key.dimensions, $0.key.where_, $0.value) })
    try apply(pending.placement, db, appId: appId)
    try apply(pending.appleAds, db, appId: appId)
    pending.cohorts = [:]
    pending.subscriptionDays = [:]
    pending.placement = PlacementProjection.Changes()
    pending.appleAds = AppleAdsProjection.Changes()
  }

  /// Writes the contributions `pending` kept, many to a statement, table by table and each
  /// table's rows in entity order (the order every writer locks them in); from then on each is
  /// written when it is recomputed again.
  static func writeContributions(_ pending: PendingRollups, _ db: any SQLConnection) throws {
    defer { pending.contributions = nil }
    for (table, kept) in (pending.contributions ?? [:]).sorted(by: { $0.key < $1.key }) {
      try insertRows(
        db, table: table, columns: "app_id, \(kept.idColumn), dimensions, changes",
        kept.rows.sorted { $0.key < $1.key }.map(\.value),
        suffix: """
          ON CONFLICT (app_id, \(kept.idColumn)) DO UPDATE SET
          dimensions = excluded.dimensions, changes = excluded.changes
          """)
    }
  }
}
