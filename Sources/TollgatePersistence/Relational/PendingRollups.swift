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
}
