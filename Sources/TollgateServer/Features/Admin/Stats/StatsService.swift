import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The reports: each placement's variations (viewers, conversion with its credible interval,
/// revenue, probability to be best), their daily series, Apple Ads campaigns, ad groups and
/// keywords, and the overview's revenue periods and attribution funnel — all from the rollups.
final class StatsService: Sendable {
  let apps: any AppRepository
  let attributionJobs: any AttributionJobRepository
  /// The rollups and spend: on the primary, or a read replica while it is usable.
  let reports: ReportSource
  let configs: ConfigCache
  let attribution: AttributionWorker
  let time: any TimeSource

  init(
    apps: any AppRepository, attributionJobs: any AttributionJobRepository, reports: ReportSource,
    configs: ConfigCache, attribution: AttributionWorker, time: any TimeSource
  ) {
    self.reports = reports
    self.apps = apps
    self.attributionJobs = attributionJobs
    self.configs = configs
    self.attribution = attribution
    self.time = time
  }

  /// A placement's report over UTC days `from`…`to` (default the last 30); 404 for a
  /// placement neither configured nor counted.
  func placementReport(appId: Int64, placementId: String, from: String?, to: String?) throws -> PlacementReport {
    let days = try ReportRange.days(from: from, to: to, now: time.now())
    let config = try configs.entry(appId: appId)?.config
    let counts = try reports.read { analytics, _ in
      try analytics.placementStats(appId: appId, placementId: placementId, days: days)
    }
    guard config?.placements[placementId] != nil || !counts.isEmpty else {
      throw PlacementService.notFound(placementId)
    }
    return PlacementReport.build(placementId: placementId, days: days, counts: counts, config: config)
  }

  /// A placement's counters per variation and day.
  func placementDays(appId: Int64, placementId: String, from: String?, to: String?) throws -> PlacementDaysPayload {
    let days = try ReportRange.days(from: from, to: to, now: time.now())
    let rows = try reports.read { analytics, _ in
      try analytics.placementDays(appId: appId, placementId: placementId, days: days)
    }
    guard try configs.entry(appId: appId)?.config.placements[placementId] != nil || !rows.isEmpty else {
      throw PlacementService.notFound(placementId)
    }
    return PlacementDaysPayload(
      placementId: placementId, from: PlacementReport.isoDay(days.lowerBound),
      to: PlacementReport.isoDay(days.upperBound), days: rows)
  }

  /// Installs, first-launch targeting, purchasers and revenue by campaign, ad group or keyword.
  func appleAdsReport(appId: Int64, from: String?, to: String?, by name: String?, environment: String? = nil) throws
    -> AppleAdsReport
  {
    let days = try ReportRange.days(from: from, to: to, now: time.now())
    guard let grouping = AppleAdsGrouping(rawValue: name ?? AppleAdsGrouping.campaign.rawValue) else {
      throw DomainError(.badParameter, "by is campaign, ad_group or keyword.")
    }
    let environment = try AppleAdsReportQuery.environment(environment)
    let config = try configs.entry(appId: appId)?.config
    return try reports.read { analytics, spend in
      try AppleAdsReportQuery.report(
        analytics: analytics, spend: spend, appId: appId, days: days, by: grouping, environment: environment,
        config: config, today: StatsDay.of(time.now()))
    }
  }

  /// The overview: the app, its placements, revenue today / 7 / 30 days, the attribution
  /// funnel, and this server's request counters (`requestsByClass`: `2xx` … `5xx`).
  func overview(appId: Int64, requestsByClass classes: [String: Int]) throws -> OverviewPayload {
    guard let app = try apps.app(id: appId) else {
      throw DomainError.notFound(.appNotFound, "The app of this key no longer exists.")
    }
    let config = try configs.entry(appId: app.id)?.config
    return OverviewPayload(
      name: app.name, revision: app.revision,
      placements: config?.placementIds ?? [],
      requests: .init(
        total: classes.values.reduce(0, +), clientErrors: classes["4xx"] ?? 0, serverErrors: classes["5xx"] ?? 0),
      attribution: .init(queueDepth: try attributionJobs.attributionQueueDepth(), outcomes: attribution.outcomeCounts),
      funnel: try attributionJobs.attributionFunnel(appId: app.id),
      revenue: try revenuePeriods(appId: app.id, reporting: config?.reporting),
      reportingCurrency: config?.reporting?.currency)
  }

  /// Purchases and revenue today, over the last 7 and the last 30 UTC days.
  func revenuePeriods(appId: Int64, reporting: ReportingSettings?) throws -> [RevenuePeriod] {
    let today = StatsDay.of(time.now())
    let periods: [(String, Int64)] = [("today", 1), ("7_days", 7), ("30_days", 30)]
    return try periods.map { name, length in
      let days = (today - length + 1)...today
      let totals = try reports.read { analytics, _ in try analytics.revenueTotals(appId: appId, days: days) }
      var revenue: [String: MoneyReport] = [:]
      for (currency, total) in totals {
        revenue[currency] = MoneyReport(
          currency: currency, gross: total.gross, refunded: total.refunded, transactions: total.transactions)
      }
      let transactions = totals.values.reduce(0) { $0 + $1.transactions }
      return RevenuePeriod(
        period: name, from: PlacementReport.isoDay(days.lowerBound), to: PlacementReport.isoDay(days.upperBound),
        transactions: transactions, revenue: revenue,
        // Purchasers are not counted per period: no ARPPU here.
        reporting: reporting?.convert(
          gross: totals.mapValues(\.gross), refunded: totals.mapValues(\.refunded), viewers: nil, purchasers: 0))
    }
  }
}

/// Revenue of one period on the overview.
struct RevenuePeriod: Codable, Sendable {
  var period: String
  var from: String
  var to: String
  /// Purchases and renewals.
  var transactions: Int64
  /// By currency, in the currency's units.
  var revenue: [String: MoneyReport]
  /// In the reporting currency, when the configuration names one.
  var reporting: ConvertedMoney?
}

/// `GET /v1/admin/stats/placements/{id}/days`: the experiment chart's series.
struct PlacementDaysPayload: Codable, Sendable {
  var placementId: String
  var from: String
  var to: String
  var days: [VariationDay]

  enum CodingKeys: String, CodingKey {
    case from, to, days
    case placementId = "placement_id"
  }
}

/// `GET /v1/admin/overview`: what the console's first page shows.
struct OverviewPayload: Encodable, Sendable {
  struct Requests: Codable, Sendable {
    var total: Int
    var clientErrors: Int
    var serverErrors: Int

    enum CodingKeys: String, CodingKey {
      case total
      case clientErrors = "client_errors"
      case serverErrors = "server_errors"
    }
  }

  struct Attribution: Codable, Sendable {
    var queueDepth: Int
    var outcomes: [String: Int]

    enum CodingKeys: String, CodingKey {
      case outcomes
      case queueDepth = "queue_depth"
    }
  }

  var name: String
  var revision: Int64
  var placements: [String]
  var requests: Requests
  var attribution: Attribution
  /// This app's attribution tokens by outcome, from the database.
  var funnel: AttributionFunnel
  /// Today, the last 7 and the last 30 UTC days.
  var revenue: [RevenuePeriod]
  var reportingCurrency: String?

  enum CodingKeys: String, CodingKey {
    case name, revision, placements, requests, attribution, funnel, revenue
    case reportingCurrency = "reporting_currency"
  }
}

extension StatsService {
  /// Subscriptions over UTC days `from`…`to` (default the last 30) by day, week or month,
  /// Production unless `environment` is `sandbox`, narrowed by the filters
  /// (`SubscriptionReport.request`).
  func subscriptionReport(appId: Int64, from: String?, to: String?, parameters: [String: String]) throws
    -> SubscriptionReport
  {
    let days = try ReportRange.days(from: from, to: to, now: time.now())
    let (grouping, filters) = try SubscriptionReport.request(parameters)
    let totals = try reports.read { analytics, _ in
      try analytics.subscriptionDays(appId: appId, days: days, filters: filters)
    }
    return SubscriptionReport.build(
      days: days, by: grouping, environment: filters.environment, totals: totals,
      reporting: try configs.entry(appId: appId)?.config.reporting)
  }

  /// Install cohorts of UTC install days `from`…`to` (default the last 90) by day, week or
  /// month, split by a segment or kept to imported or live customers; each with the ages all
  /// its installs have reached.
  func cohortReport(appId: Int64, from: String?, to: String?, parameters: [String: String]) throws -> CohortReport {
    let now = time.now()
    let days = try CohortReport.installDays(from: from, to: to, now: now)
    let request = try CohortReport.request(parameters)
    let (rows, inOthers) = try reports.read { analytics, _ in
      try analytics.cohortRows(appId: appId, installDays: days, request: request)
    }
    var report = CohortReport.build(
      installDays: days, by: request.grouping, segment: request.segment, environment: request.environment,
      rows: rows, reporting: try configs.entry(appId: appId)?.config.reporting, today: StatsDay.of(now))
    report.segmentsInOthers = inOthers
    return report
  }
}
