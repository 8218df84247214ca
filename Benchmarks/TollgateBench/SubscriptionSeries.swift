import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The subscription report's work (rollup query and report) over `subscriptions` monthly
/// subscriptions started across the last two years, each renewed month after month until it
/// churns (a third within a year), a tenth refunded once — recorded through the store's own
/// path so the rollups are the live ones, in batches of 1 000 transactions by `streams`
/// recorders at once (each its own subscriptions), as a server's concurrent purchases are.
enum SubscriptionSeries {
  static func run(database: String, subscriptions: Int, streams: Int = 1) throws {
    let streams = max(1, streams)
    let store = try StoreLocation.open(database, connections: max(2, streams)).database
    defer { store.close() }
    let app = try KeyIssuer(apps: store).issue(appName: "subscriptions-\(UUID().uuidString.prefix(6))").app
    let now = Date()
    let today = Int64(now.timeIntervalSince1970 * 1000)
    let day: Int64 = 86_400_000
    var random = SystemRandomNumberGenerator()
    // One installed profile per subscription, created the day it starts (its cohort), a fifth
    // of them from Apple Ads would need attribution: all organic here.
    var starts: [Int64] = []
    var profiles: [ProfileRecord] = []
    for index in 0..<subscriptions {
      let start = today - Int64.random(in: 0..<730, using: &random) * day
      starts.append(start)
      let created = Date(timeIntervalSince1970: Double(start) / 1000)
      profiles.append(ProfileRecord(id: Self.profileId(index), createdAt: created, updatedAt: created))
      if profiles.count == 5_000 {
        _ = try store.importProfiles(appId: app.id, profiles)
        profiles = []
      }
    }
    if !profiles.isEmpty { _ = try store.importProfiles(appId: app.id, profiles) }
    // The transactions are made before the clock starts: what is timed is their recording,
    // not this program writing and parsing their JSON.
    var batches: [[[StoredTransaction]]] = Array(repeating: [[]], count: streams)
    var transactions = 0
    for index in 0..<subscriptions {
      let original = String(5_000_000_000 + index * 100)
      var start = starts[index]
      let months = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 1...12, using: &random) : 30
      let stream = index % streams
      for month in 0..<months where start < today {
        let id = month == 0 ? original : String(5_000_000_000 + index * 100 + month)
        var json: [String: Any] = [
          "transactionId": id, "originalTransactionId": original, "bundleId": "com.example.tollgate",
          "productId": index % 5 == 0 ? "pro_annual" : "pro_monthly", "purchaseDate": start,
          "expiresDate": start + 30 * day, "type": TransactionPayload.autoRenewable, "signedDate": start,
          "environment": "Production", "transactionReason": month == 0 ? "PURCHASE" : "RENEWAL",
          "price": 9_990, "currency": index % 4 == 0 ? "EUR" : "USD", "storefront": index % 3 == 0 ? "DEU" : "USA",
          "appAccountToken": Self.profileId(index),
        ]
        if index % 10 == 0 && month == 1 { json["revocationDate"] = start + 3 * day }
        let payload = try JSONDecoder().decode(
          TransactionPayload.self, from: JSONSerialization.data(withJSONObject: json))
        if batches[stream][batches[stream].count - 1].count == 1_000 { batches[stream].append([]) }
        batches[stream][batches[stream].count - 1].append(StoredTransaction(payload: payload, jws: "bench"))
        transactions += 1
        start += 30 * day
      }
    }
    let recorder = PurchaseRecorder(store)
    let failures = Mutex<[String]>([])
    let work = batches
    let started = Date()
    DispatchQueue.concurrentPerform(iterations: streams) { stream in
      do {
        for batch in work[stream] where !batch.isEmpty {
          _ = try recorder.record(
            appId: app.id, AppStoreFacts(transactions: batch), at: now, derive: { _ in ProfilePurchases() })
        }
      } catch {
        failures.withLock { $0.append("stream \(stream): \(error)") }
      }
    }
    let seeding = Date().timeIntervalSince(started)
    if let failure = failures.withLock({ $0.first }) { throw RecordingFailed(description: failure) }
    let days = try ReportRange.days(from: nil, to: nil, now: now)
    let ninety = (days.upperBound - 89)...days.upperBound
    var report: SubscriptionReport?
    let timings = try Timings(runs: 30) {
      let totals = try store.subscriptionDays(appId: app.id, days: ninety, filters: SubscriptionFilters())
      report = SubscriptionReport.build(
        days: ninety, by: .day, environment: "Production", totals: totals,
        reporting: ReportingSettings(currency: "USD", rates: ["EUR": 1.08]))
      _ = WireCoding.encode(report)
    }
    let year = (days.upperBound - 364)...days.upperBound
    var cohorts: CohortReport?
    let cohortTimings = try Timings(runs: 30) {
      cohorts = CohortReport.build(
        installDays: year, by: .month, segment: .country, environment: "Production",
        rows: try store.cohortRows(
          appId: app.id, installDays: year, by: .month, segment: .country, environment: "Production"),
        reporting: ReportingSettings(currency: "USD", rates: ["EUR": 1.08]), today: days.upperBound)
      _ = WireCoding.encode(cohorts)
    }
    print(
      String(
        format:
          "%d subscriptions (one profile each), %d transactions over two years recorded in %.0f s by %d recorder%@ at once (%.0f transactions/s), %d active now: 90-day daily series p50 %.1f ms, p99 %.1f ms; 12-month cohort table by country (%d cohorts) p50 %.1f ms, p99 %.1f ms",
        subscriptions, transactions, seeding, streams, streams == 1 ? "" : "s", Double(transactions) / seeding,
        report?.periods.last?.activeSubscriptions ?? 0,
        timings.median, timings.p99, cohorts?.cohorts.count ?? 0, cohortTimings.median, cohortTimings.p99))
  }

  static func profileId(_ index: Int) -> String {
    String(format: "00000000-0000-4000-8000-%012d", index)
  }
}

/// A recorder stopped on an error: the figure would not be the whole run's.
struct RecordingFailed: Error, CustomStringConvertible {
  let description: String
}
