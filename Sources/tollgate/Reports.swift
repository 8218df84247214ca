import Foundation
import TollgateCommandLine
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate report placement|apple-ads|subscriptions` and `tollgate rollups rebuild`.
enum Reports {
  enum Format: String { case table, json, csv }

  static func placement(_ options: inout Options) throws {
    guard let placementId = options.positional() else { throw Failure("report placement needs a placement id") }
    let (store, app, days, format) = try open(&options)
    defer { store.close() }
    let config = try store.currentConfig(appId: app.id).map {
      try ConfigValidator.compile($0.document, revision: $0.revision)
    }
    let counts = try store.placementStats(appId: app.id, placementId: placementId, days: days)
    guard config?.placementIds.contains(placementId) == true || !counts.isEmpty else {
      throw Failure.missing("no placement \(placementId) in app \(app.name)")
    }
    let report = PlacementReport.build(placementId: placementId, days: days, counts: counts, config: config)
    switch format {
    case .json: print(ReportTables.json(report))
    case .csv: print(ReportTables.csv(report))
    case .table: print(ReportTables.table(report))
    }
  }

  static func appleAds(_ options: inout Options) throws {
    let name = options.value("--by", env: nil) ?? "campaign"
    guard let grouping = AppleAdsGrouping(rawValue: name) else {
      throw Failure("--by is campaign, ad_group or keyword")
    }
    let environment = try AppleAdsReportQuery.environment(options.value("--environment", env: nil))
    let (store, app, days, format) = try open(&options)
    defer { store.close() }
    let config = try store.currentConfig(appId: app.id).map {
      try ConfigValidator.compile($0.document, revision: $0.revision)
    }
    let report = try AppleAdsReportQuery.report(
      analytics: store, spend: store, appId: app.id, days: days, by: grouping, environment: environment, config: config,
      today: StatsDay.of(Date()))
    emit(report, format, rows: ReportTables.appleAdsRows, table: ReportTables.appleAdsTable)
  }

  /// `report subscriptions`: the same figures as `GET /v1/admin/stats/subscriptions`.
  static func subscriptions(_ options: inout Options) throws {
    var parameters: [String: String] = [:]
    for name in [
      "by", "environment", "product-id", "storefront", "campaign-id", "ad-group-id", "keyword-id", "placement-id",
      "audience-id", "variation-id", "origin",
    ] {
      if let value = options.value("--\(name)", env: nil) {
        parameters[name.replacingOccurrences(of: "-", with: "_")] = value
      }
    }
    let (grouping, filters): (SubscriptionReport.Grouping, SubscriptionFilters)
    do {
      (grouping, filters) = try SubscriptionReport.request(parameters)
    } catch {
      // The message names the parameter as the HTTP route spells it; the option uses hyphens.
      throw Failure(error.message.replacingOccurrences(of: "_", with: "-"))
    }
    let (store, app, days, format) = try open(&options)
    defer { store.close() }
    let config = try store.currentConfig(appId: app.id).map {
      try ConfigValidator.compile($0.document, revision: $0.revision)
    }
    let report = SubscriptionReport.build(
      days: days, by: grouping, environment: filters.environment,
      totals: try store.subscriptionDays(appId: app.id, days: days, filters: filters),
      reporting: config?.reporting)
    emit(report, format, rows: ReportTables.subscriptionRows, table: ReportTables.subscriptionTable)
  }

  /// `report cohorts`: the same figures as `GET /v1/admin/stats/cohorts`.
  static func cohorts(_ options: inout Options) throws {
    var parameters: [String: String] = [:]
    for name in ["by", "segment", "environment", "origin", "top"] {
      if let value = options.value("--\(name)", env: nil) { parameters[name] = value }
    }
    let request: CohortReport.Request
    do {
      request = try CohortReport.request(parameters)
    } catch {
      throw Failure(error.message)
    }
    let explicitFrom = options.value("--from", env: nil)
    let explicitTo = options.value("--to", env: nil)
    let (store, app, _, format) = try open(&options)
    defer { store.close() }
    let now = Date()
    let days: ClosedRange<Int64>
    do {
      days = try CohortReport.installDays(from: explicitFrom, to: explicitTo, now: now)
    } catch {
      throw Failure.missing(error.message)
    }
    let config = try store.currentConfig(appId: app.id).map {
      try ConfigValidator.compile($0.document, revision: $0.revision)
    }
    let (rows, inOthers) = try store.cohortRows(appId: app.id, installDays: days, request: request)
    var report = CohortReport.build(
      installDays: days, by: request.grouping, segment: request.segment, environment: request.environment,
      rows: rows, reporting: config?.reporting, today: StatsDay.of(now))
    report.segmentsInOthers = inOthers
    emit(report, format, rows: ReportTables.cohortRows, table: ReportTables.cohortTable)
  }

  /// Prints a report as JSON, CSV (its table's rows) or the table.
  private static func emit<Report: Encodable>(
    _ report: Report, _ format: Format, rows: (Report) -> [[String]], table: (Report) -> String
  ) {
    switch format {
    case .json: print(ReportTables.json(report))
    case .csv: print(rows(report).map { $0.map(ReportTables.csvField).joined(separator: ",") }.joined(separator: "\n"))
    case .table: print(table(report))
    }
  }

  static func rebuild(_ options: inout Options) throws {
    let appName = try options.required("--app")
    let acceptExpired = options.flag("--accept-expired")
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    guard let app = try store.app(named: appName) else { throw Failure.missing("no app named \(appName)") }
    if let expired = try store.eventsExpiredBefore(appId: app.id), !acceptExpired {
      throw Failure(
        "raw flow views received before \(Timestamp.string(expired)) were deleted (events retention), so a rebuild "
          + "would drop the impressions and viewers counted before then (revenue, purchases and cohorts keep "
          + "theirs). Nothing was changed; add --accept-expired to rebuild anyway.", status: 1)
    }
    let before = try store.rollupSnapshot(appId: app.id)
    try store.rebuildRollups(appId: app.id)
    let after = try store.rollupSnapshot(appId: app.id)
    let missing = Set(before).subtracting(after).sorted()
    let added = Set(after).subtracting(before).sorted()
    print("rebuilt the rollups of \(appName) from raw rows: \(after.count) rows")
    if missing.isEmpty && added.isEmpty {
      print("the live rollups agreed exactly")
    } else {
      print("the live rollups differed (now replaced): \(missing.count) rows gone, \(added.count) rows new")
      for line in missing.prefix(20) { print("- \(line)") }
      for line in added.prefix(20) { print("+ \(line)") }
    }
  }

  private static func open(_ options: inout Options) throws -> (any Database, AppRecord, ClosedRange<Int64>, Format) {
    let appName = try options.required("--app")
    let formatName = options.value("--format", env: nil) ?? "table"
    guard let format = Format(rawValue: formatName) else { throw Failure("--format is table, json or csv") }
    let from = options.value("--from", env: nil)
    let to = options.value("--to", env: nil)
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    try options.finish()
    guard let app = try store.app(named: appName) else {
      store.close()
      throw Failure.missing("no app named \(appName)")
    }
    return (store, app, try ReportRange.days(from: from, to: to, now: Date()), format)
  }
}
