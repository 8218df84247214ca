import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The revenue reports at an app's scale: `profiles` installs over the last two years (a fifth
/// from Apple Ads: 10 campaigns × 5 ad groups × 20 keywords; six storefronts), each shown one of
/// four paywall variations of an experiment when it installs, and `subscriptions` of them
/// subscribing (monthly or yearly, a third after a week's free trial, most trials converting,
/// monthly churn, some refunds). The raw rows are loaded many a statement — the same rows on
/// either engine — and every rollup is derived by `rebuildRollups`, the code `tollgate rollups
/// rebuild` runs (the tests hold it equal to the live rollups).
enum AnalyticsAtScale {
  static let variations = (0..<4).map { "v\($0)" }

  static func config() -> String {
    let flows = variations.map { #"{"id":"\#($0)","name":"\#($0)","products":["pro_monthly","pro_annual"]}"# }
    let weights = variations.map { #"{"flow":"\#($0)","weight":25}"# }
    return
      #"{"flows":[\#(flows.joined(separator: ","))],"audiences":[{"id":"everyone","rule":{}}],"placements":[{"id":"onboarding","targets":[{"audience":"everyone","experiment":{"name":"paywall test","variations":[\#(weights.joined(separator: ","))]}}],"default":"v0"}]}"#
  }

  /// `existing`: the name of an app an earlier run loaded, to measure its reports again.
  static func run(database: String, profiles: Int, subscriptions: Int, existing: String?) throws {
    let store = try StoreLocation.open(database, connections: 2).database
    defer { store.close() }
    if let existing {
      guard let app = try store.app(named: existing) else { throw StoreError.database("no app \(existing)") }
      let compiled = try ConfigValidator.compile(Data(config().utf8), revision: 1)
      try measure(store, app: app, compiled: compiled, now: Date())
      return
    }
    let app = try KeyIssuer(apps: store).issue(appName: "analytics-\(UUID().uuidString.prefix(6))").app
    let compiled = try ConfigImporter(database: store).apply(Data(config().utf8), appId: app.id)
    let now = Date()
    let day: Int64 = 86_400_000
    let today = Int64(now.timeIntervalSince1970 * 1000) / day * day
    var random = SeededGenerator(seed: 21)
    let countries = ["USA", "FRA", "DEU", "GBR", "JPN", "BRA"]
    let every = max(1, profiles / max(1, subscriptions))
    var transactions = 0
    let loading = ContinuousClock.now
    var load = BulkLoad()
    func flush() throws {
      try StoreLocation.bulkLoad(into: store, appId: app.id, load)
      load = BulkLoad()
    }
    for index in 0..<profiles {
      let id = String(format: "00000000-0000-4000-8000-%012d", index)
      let installed = today - Int64(index % 730) * day - Int64.random(in: 0..<day, using: &random)
      let created = Date(timeIntervalSince1970: Double(installed) / 1000)
      var record = ProfileRecord(
        id: id, install: InstallMeta(storeCountry: countries.randomElement(using: &random)), createdAt: created,
        updatedAt: created)
      if Int.random(in: 0..<5, using: &random) == 0 {
        let campaign = Int64.random(in: 101...110, using: &random)
        let adGroup = campaign * 10 + Int64.random(in: 0..<5, using: &random)
        let keyword = adGroup * 100 + Int64.random(in: 0..<20, using: &random)
        record.appliedSources = ["apple_ads"]
        record.attribution.status = ["apple_ads": .applied]
        record.attribution.appleAds = AppleAdsRecord(
          payload: AppleAdsPayload(
            attribution: true, orgId: 1, campaignId: campaign, adGroupId: adGroup, keywordId: keyword),
          test: false, clickDate: nil, resolvedAt: created)
      }
      load.profiles.append(record)
      let flow = variations[Int.random(in: 0..<variations.count, using: &random)]
      let credit = PurchaseAttribution(
        placementId: "onboarding", audienceId: "everyone", variationId: "onboarding:everyone:\(flow)", profileId: id)
      load.events.append(
        EventRecord(
          eventId: "e\(index)", profileId: id, placementId: "onboarding", audienceId: "everyone",
          variationId: credit.variationId, flowId: flow, receivedAt: created.addingTimeInterval(30)))
      if index % every == 0 && index / every < subscriptions {
        for payload in try history(index: index, start: installed + 60_000, today: today, random: &random) {
          load.transactions.append((StoredTransaction(payload: payload, jws: "bench"), credit))
          transactions += 1
        }
      }
      if load.profiles.count == 20_000 { try flush() }
    }
    try flush()
    let loaded = loading.duration(to: .now)
    let rebuilding = ContinuousClock.now
    try store.rebuildRollups(appId: app.id)
    let rebuilt = rebuilding.duration(to: .now)
    func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) }
    emit(
      String(
        format:
          "%d profiles, %d subscriptions, %d transactions, %d flow views loaded in %.0f s; rollups rebuilt in %.0f s (app %@)",
        profiles, subscriptions, transactions, profiles, seconds(loaded), seconds(rebuilt), app.name))
    try measure(store, app: app, compiled: compiled, now: now)
  }

  /// Times each report over the loaded app.
  static func measure(_ store: any Database, app: AppRecord, compiled: CompiledConfig, now: Date) throws {
    let days = try ReportRange.days(from: nil, to: nil, now: now)
    let ninety = (days.upperBound - 89)...days.upperBound
    let reporting = ReportingSettings(currency: "USD", rates: ["EUR": 1.08])
    var series: SubscriptionReport?
    let seriesTimings = try Timings(runs: 50) {
      let totals = try store.subscriptionDays(appId: app.id, days: ninety, filters: SubscriptionFilters())
      series = SubscriptionReport.build(
        days: ninety, by: .day, environment: "Production", totals: totals, reporting: reporting)
      _ = WireCoding.encode(series)
    }
    var filters = SubscriptionFilters()
    filters.campaignId = 103
    let filteredTimings = try Timings(runs: 20) {
      let totals = try store.subscriptionDays(appId: app.id, days: ninety, filters: filters)
      _ = WireCoding.encode(
        SubscriptionReport.build(
          days: ninety, by: .day, environment: "Production", totals: totals, reporting: reporting))
    }
    let year = (days.upperBound - 364)...days.upperBound
    var cohorts: [String: (Timings, Int)] = [:]
    for segment in [CohortReport.Segment.none, .country, .campaign, .keyword] {
      var report: CohortReport?
      let timings = try Timings(runs: 50) {
        report = CohortReport.build(
          installDays: year, by: .month, segment: segment, environment: "Production",
          rows: try store.cohortRows(
            appId: app.id, installDays: year, by: .month, segment: segment, environment: "Production"),
          reporting: reporting, today: days.upperBound)
        _ = WireCoding.encode(report)
      }
      cohorts[segment.rawValue] = (timings, report?.cohorts.count ?? 0)
    }
    // What the console asks for: the 20 keywords with the most installs, the rest summed.
    let topRequest = try CohortReport.request(["by": "month", "segment": "keyword", "top": "20"])
    var topReport: CohortReport?
    // Where the time goes: the rows read, the report built from them, its JSON.
    var (reading, building, encoding) = ([Double](), [Double](), [Double]())
    func lap(_ since: inout ContinuousClock.Instant, into laps: inout [Double]) {
      let duration = since.duration(to: .now)
      laps.append(Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000)
      since = .now
    }
    let topTimings = try Timings(runs: 50) {
      var start = ContinuousClock.now
      let (rows, inOthers) = try store.cohortRows(appId: app.id, installDays: year, request: topRequest)
      lap(&start, into: &reading)
      topReport = CohortReport.build(
        installDays: year, by: .month, segment: .keyword, environment: "Production", rows: rows,
        reporting: reporting, today: days.upperBound)
      topReport?.segmentsInOthers = inOthers
      lap(&start, into: &building)
      _ = WireCoding.encode(topReport)
      lap(&start, into: &encoding)
    }
    func median(_ laps: [Double]) -> Double { laps.sorted()[laps.count / 2] }
    let thirty = (days.upperBound - 29)...days.upperBound
    var experiment: PlacementReport?
    let experimentTimings = try Timings(runs: 50) {
      let counts = try store.placementStats(appId: app.id, placementId: "onboarding", days: thirty)
      experiment = PlacementReport.build(placementId: "onboarding", days: thirty, counts: counts, config: compiled)
      _ = WireCoding.encode(experiment)
    }
    let viewers = experiment?.audiences.flatMap(\.variations).reduce(Int64(0)) { $0 + $1.uniqueViewers } ?? 0
    func figure(_ timings: Timings) -> String {
      String(format: "p50 %.1f ms, p99 %.1f ms", timings.median, timings.p99)
    }
    emit(
      "  90-day subscription series (all, \(series?.periods.last?.activeSubscriptions ?? 0) active): \(figure(seriesTimings))"
    )
    emit("  90-day subscription series filtered by one campaign: \(figure(filteredTimings))")
    for segment in ["none", "country", "campaign", "keyword"] {
      guard let (timings, count) = cohorts[segment] else { continue }
      emit("  12-month cohort table by month, segment \(segment) (\(count) cohorts): \(figure(timings))")
      if segment == "keyword" {
        emit(
          "  the same, top 20 keywords and others (\(topReport?.cohorts.count ?? 0) cohorts): \(figure(topTimings))")
        emit(
          String(
            format: "    of which rows read p50 %.1f ms, report built p50 %.1f ms, JSON p50 %.1f ms", median(reading),
            median(building), median(encoding)))
      }
    }
    emit(
      "  experiment report, 30 days (\(viewers) viewers, 4 variations, revenue Monte Carlo): \(figure(experimentTimings))"
    )
  }

  /// One subscription's transactions from `start` until it churns or reaches today.
  static func history(index: Int, start: Int64, today: Int64, random: inout SeededGenerator) throws
    -> [TransactionPayload]
  {
    let day: Int64 = 86_400_000
    let yearly = Int.random(in: 0..<10, using: &random) < 3
    let product = yearly ? "pro_annual" : "pro_monthly"
    let length = yearly ? 365 * day : 30 * day
    let price: Int64 = yearly ? 59_990 : 9_990
    let original = String(7_000_000_000 + index * 100)
    var payloads: [TransactionPayload] = []
    var purchased = start
    var json: [String: Any] = [
      "originalTransactionId": original, "bundleId": "com.example.tollgate", "productId": product,
      "type": TransactionPayload.autoRenewable, "environment": "Production",
      "currency": Int.random(in: 0..<4, using: &random) == 0 ? "EUR" : "USD", "storefront": "USA",
      "appAccountToken": String(format: "00000000-0000-4000-8000-%012d", index),
    ]
    func add(_ expires: Int64, reason: String, trial: Bool) throws {
      json["transactionId"] = payloads.isEmpty ? original : String(7_000_000_000 + index * 100 + payloads.count)
      json["purchaseDate"] = purchased
      json["signedDate"] = purchased
      json["expiresDate"] = expires
      json["transactionReason"] = reason
      json["price"] = trial ? 0 : price
      json["offerType"] = trial ? 1 : nil
      json["offerDiscountType"] = trial ? "FREE_TRIAL" : nil
      json["revocationDate"] = !trial && Int.random(in: 0..<100, using: &random) < 3 ? purchased + 4 * day : nil
      payloads.append(
        try JSONDecoder().decode(TransactionPayload.self, from: JSONSerialization.data(withJSONObject: json)))
    }
    if Int.random(in: 0..<3, using: &random) == 0 {
      try add(purchased + 7 * day, reason: "PURCHASE", trial: true)
      purchased += 7 * day
      guard Int.random(in: 0..<10, using: &random) < 6, purchased < today else { return payloads }
    }
    while purchased < today {
      try add(purchased + length, reason: payloads.isEmpty ? "PURCHASE" : "RENEWAL", trial: false)
      if payloads.last?.revocationDate != nil || Int.random(in: 0..<100, using: &random) < (yearly ? 30 : 8) { break }
      purchased += length
    }
    return payloads
  }
}

/// A fixed-seed generator (SplitMix64), so every run loads the same data set.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
