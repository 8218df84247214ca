import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The stats routes' work (rollup query and report) over a placement with `impressions`
/// flow_shown events and `purchases` purchases, seeded through the store's own recording
/// paths so the rollups are the live ones.
enum StatsQuery {
  static let variations = [
    "onboarding:apple_ads_brand:aa_offer", "onboarding:apple_ads_brand:aa_offer_b", "onboarding:default:standard",
  ]

  static func run(database: String, config: String, impressions: Int, purchases: Int) throws {
    let store = try StoreLocation.open(database, connections: 2).database
    defer { store.close() }
    let app = try KeyIssuer(apps: store).issue(appName: "stats-\(UUID().uuidString.prefix(6))").app
    let compiled = try ConfigImporter(database: store).apply(
      Data(contentsOf: URL(fileURLWithPath: config)), appId: app.id)
    let viewers = max(purchases, impressions / 5)
    let now = Date()
    let started = Date()
    let ids = (0..<viewers).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
    for chunk in stride(from: 0, to: ids.count, by: 5_000) {
      _ = try store.importProfiles(
        appId: app.id,
        ids[chunk..<min(chunk + 5_000, ids.count)].map { ProfileRecord(id: $0, createdAt: now, updatedAt: now) })
    }
    var events: [EventRecord] = []
    for index in 0..<impressions {
      let profile = index % viewers
      let variation = variations[profile % variations.count]
      let parts = variation.split(separator: ":").map(String.init)
      events.append(
        EventRecord(
          eventId: "e\(index)", profileId: ids[profile], placementId: parts[0], audienceId: parts[1],
          variationId: variation, flowId: parts[2],
          receivedAt: now.addingTimeInterval(-Double(index % 30) * 86_400 - Double(index % 997))))
      if events.count == 2_000 {
        _ = try store.recordEvents(appId: app.id, events)
        events = []
      }
    }
    if !events.isEmpty { _ = try store.recordEvents(appId: app.id, events) }
    let derive: (PurchaseHistory) -> ProfilePurchases = {
      PurchaseDerivation.derive($0, levels: compiled.accessLevels, now: now)
    }
    var batch: [StoredTransaction] = []
    for index in 0..<purchases {
      let id = String(3_000_000_000 + index)
      let milliseconds = Int64(now.timeIntervalSince1970 * 1000) - Int64(index % 30) * 86_400_000
      let json: [String: Any] = [
        "transactionId": id, "originalTransactionId": id, "bundleId": "com.example.tollgate", "productId": "pro_annual",
        "purchaseDate": milliseconds, "expiresDate": milliseconds + 365 * 86_400_000,
        "type": TransactionPayload.autoRenewable, "appAccountToken": ids[index], "signedDate": milliseconds,
        "environment": "Sandbox", "transactionReason": "PURCHASE", "price": index % 4 == 0 ? 54_990 : 59_990,
        "currency": index % 4 == 0 ? "EUR" : "USD",
      ]
      let payload = try JSONDecoder().decode(
        TransactionPayload.self, from: JSONSerialization.data(withJSONObject: json))
      batch.append(
        StoredTransaction(payload: payload, jws: "bench", variationId: variations[index % variations.count]))
      if batch.count == 500 {
        _ = try PurchaseRecorder(store).record(
          appId: app.id, AppStoreFacts(transactions: batch), at: now, derive: derive)
        batch = []
      }
    }
    if !batch.isEmpty {
      _ = try PurchaseRecorder(store).record(appId: app.id, AppStoreFacts(transactions: batch), at: now, derive: derive)
    }
    let seeding = Date().timeIntervalSince(started)

    let days = try ReportRange.days(from: nil, to: nil, now: now)
    var report: PlacementReport?
    let timings = try Timings(runs: 50) {
      let counts = try store.placementStats(appId: app.id, placementId: "onboarding", days: days)
      report = PlacementReport.build(placementId: "onboarding", days: days, counts: counts, config: compiled)
      _ = WireCoding.encode(report)
    }
    let counted = report?.audiences.flatMap(\.variations).reduce(Int64(0)) { $0 + $1.impressions } ?? 0
    let bought = report?.audiences.flatMap(\.variations).reduce(Int64(0)) { $0 + $1.purchasers } ?? 0
    emit(
      String(
        format: "%d impressions, %d purchasers (seeded in %.0f s): report p50 %.1f ms, p99 %.1f ms, max %.1f ms",
        counted, bought, seeding, timings.median, timings.p99, timings.worst))
  }
}
