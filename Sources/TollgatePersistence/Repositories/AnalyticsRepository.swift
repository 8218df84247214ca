import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Rollups, kept as facts arrive: the reports read them; a rebuild recomputes them from raw rows.
public protocol AnalyticsRepository: Sendable {
  /// A placement's counters per variation over a range of UTC days, from the rollups.
  func placementStats(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationCounts]

  /// Transactions and amounts by currency over UTC days, every paywall and unattributed together.
  func revenueTotals(appId: Int64, days: ClosedRange<Int64>) throws -> [String: MoneyFigures]

  /// A placement's counters per variation and day.
  func placementDays(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationDay]

  /// Apple Ads counters over a range of install days, grouped as asked, from the rollups.
  func appleAdsStats(appId: Int64, days: ClosedRange<Int64>, by grouping: AppleAdsGrouping) throws -> [AppleAdsCounts]

  /// The filtered subscriptions' changes per day and currency over `days`, preceded by one row
  /// per currency dated the day before holding only the stocks (active subscriptions, trials,
  /// MRR) summed from the beginning.
  func subscriptionDays(appId: Int64, days: ClosedRange<Int64>, filters: SubscriptionFilters) throws
    -> [SubscriptionDayTotals]

  /// The cohort rollup's rows for profiles installed on `installDays`, money of `environment`.
  func cohortRows(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String
  ) throws -> [CohortTotals]

  /// Installs per segment value over `installDays` (what `top` ranks segments by).
  func cohortSegmentInstalls(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String
  ) throws -> [String: Int64]

  /// `cohortRows` of the segment `values` only, read by their keys: a few of a segmentation of
  /// thousands of values cost what they hold, not what the segmentation holds.
  func cohortRows(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String, values: Set<String>
  ) throws -> [CohortTotals]

  /// Every rollup row of the app as text lines (rows that netted out to zero left out), sorted.
  func rollupSnapshot(appId: Int64) throws -> [String]

  /// Recomputes the app's rollups from raw rows, in one transaction.
  func rebuildRollups(appId: Int64) throws
}

extension AnalyticsRepository {
  /// The rows a cohort request's report is built from, and how many segments its `others`
  /// sums (nil without `top`): with `top`, the segments are ranked first, the kept ones read by
  /// their keys, and `others` taken as every install's rows less theirs.
  public func cohortRows(appId: Int64, installDays: ClosedRange<Int64>, request: CohortReport.Request) throws
    -> (rows: [CohortTotals], segmentsInOthers: Int?)
  {
    let stored = request.storedSegment
    if request.top != nil, request.origin == nil {
      let installs = try cohortSegmentInstalls(
        appId: appId, installDays: installDays, by: request.grouping, segment: stored,
        environment: request.environment)
      if let kept = request.kept(installs) {
        let keptRows = try cohortRows(
          appId: appId, installDays: installDays, by: request.grouping, segment: stored,
          environment: request.environment, values: kept)
        let every = try cohortRows(
          appId: appId, installDays: installDays, by: request.grouping, segment: .none,
          environment: request.environment)
        return (CohortReport.keeping(keptRows, of: every), installs.count - kept.count)
      }
    }
    let rows = try cohortRows(
      appId: appId, installDays: installDays, by: request.grouping, segment: stored,
      environment: request.environment)
    return (request.select(rows), request.top == nil ? nil : 0)
  }
}
