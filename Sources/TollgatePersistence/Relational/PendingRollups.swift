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
  /// `stats_daily` impressions and viewers by paywall and day.
  var daily: [DailyRow: (impressions: Int64, viewers: Int64)] = [:]

  struct DailyRow: Hashable {
    var key: VariationKey
    var day: Int64
  }

  func addDaily(_ key: VariationKey, day: Int64, impressions: Int64 = 0, viewers: Int64 = 0) {
    let known = daily[DailyRow(key: key, day: day)] ?? (0, 0)
    daily[DailyRow(key: key, day: day)] = (known.impressions + impressions, known.viewers + viewers)
  }
}

extension RelationalStore {
  /// Writes what `pending` gathered and empties it.
  static func write(_ pending: PendingRollups, _ db: any SQLConnection, appId: Int64) throws {
    try bumpCohortSegments(db, appId: appId, pending.cohorts)
    try bumpSubscriptionDays(
      db, appId: appId, pending.subscriptionDays.map { ($0.key.dimensions, $0.key.where_, $0.value) })
    let daily = pending.daily.sorted {
      ($0.key.key.placement, $0.key.key.audience, $0.key.key.variation, $0.key.day)
        < ($1.key.key.placement, $1.key.key.audience, $1.key.key.variation, $1.key.day)
    }
    for (row, counts) in daily {
      try bump(db, appId: appId, row.key, day: row.day, impressions: counts.impressions, viewers: counts.viewers)
    }
    pending.cohorts = [:]
    pending.subscriptionDays = [:]
    pending.daily = [:]
  }
}
