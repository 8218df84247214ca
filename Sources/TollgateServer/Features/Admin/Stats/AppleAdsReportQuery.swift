import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Reads what the Apple Ads report joins — attribution counts, imported spend and names, the
/// cohort rollup's money — for the admin route and `tollgate report apple-ads` alike.
public enum AppleAdsReportQuery {
  /// The store environment a request names (`production`, the default, or `sandbox`).
  public static func environment(_ name: String?) throws(DomainError) -> String {
    switch name ?? "production" {
    case "production": return "Production"
    case "sandbox": return "Sandbox"
    default: throw DomainError(.badParameter, "environment is production or sandbox.")
    }
  }

  /// The report over install days `days`, grouped `by`, with cohort money of `environment`
  /// (`Production` or `Sandbox`), as of `today`.
  public static func report(
    analytics: any AnalyticsRepository, spend: any AppleAdsSpendRepository, appId: Int64, days: ClosedRange<Int64>,
    by grouping: AppleAdsGrouping,
    environment: String = "Production", config: CompiledConfig?, today: Int64
  ) throws -> AppleAdsReport {
    let segment: CohortReport.Segment
    switch grouping {
    case .campaign: segment = .campaign
    case .adGroup: segment = .adGroup
    case .keyword: segment = .keyword
    }
    return AppleAdsReport.build(
      days: days, by: grouping, counts: try analytics.appleAdsStats(appId: appId, days: days, by: grouping),
      spend: try spend.spendFigures(appId: appId, days: days), names: try spend.adsEntityNames(appId: appId),
      cohorts: try analytics.cohortRows(
        appId: appId, installDays: days, by: .day, segment: segment, environment: environment),
      config: config, today: today)
  }
}
