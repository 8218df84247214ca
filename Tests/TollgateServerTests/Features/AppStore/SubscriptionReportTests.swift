import Foundation
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The subscription report through the real routes: signed transactions and notifications in,
/// every figure checked against the scenario's own arithmetic.
@Suite("Subscription report")
struct SubscriptionReportTests {
  typealias F = StoreKitFixtures

  static func iso(_ day: Double) -> String { PlacementReport.isoDay(StatsDay.of(milliseconds: F.milliseconds(day))) }

  /// A: a week's trial (day 0), paid monthly from day 7, renewed on day 37, expired on day 67 after
  /// Apple reported a failed renewal (grace period). B: paid monthly on day 2, refunded on day 5.
  /// C: yearly from day 3. D: a trial on day 10 that lapses on day 17.
  static func scenario() async throws -> PurchaseRouteTests.Harness {
    let harness = try await PurchaseRouteTests.Harness()
    let server = harness.server
    let (a, b, c, d) = (
      try await server.createProfile(), try await server.createProfile(), try await server.createProfile(),
      try await server.createProfile()
    )
    func post(_ transaction: TransactionPayload, _ profile: String) async throws {
      #expect(try await harness.post(transaction, profile: profile).status == 200)
    }
    try await post(
      F.transaction("100", original: "100", purchased: 0, expires: 7, offerType: 1, discount: "FREE_TRIAL", price: 0), a
    )
    try await post(F.transaction("101", original: "100", purchased: 7, expires: 37, reason: "RENEWAL"), a)
    try await post(F.transaction("102", original: "100", purchased: 37, expires: 67, reason: "RENEWAL"), a)
    try await post(F.transaction("200", original: "200", purchased: 2, expires: 32), b)
    try await post(F.transaction("200", original: "200", purchased: 2, expires: 32, signed: 5, revoked: 5), b)
    try await post(
      F.transaction("300", original: "300", product: "pro_annual", purchased: 3, expires: 368, price: 59_990), c)
    try await post(
      F.transaction("400", original: "400", purchased: 10, expires: 17, offerType: 1, discount: "FREE_TRIAL", price: 0),
      d)
    let failed = try await harness.notify(
      F.notification(
        "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", signed: 67,
        renewal: F.renewal(original: "100", grace: 70, signed: 67)
      ))
    #expect(failed.status == 200)
    return harness
  }

  @Test("day by day: actives, trials, conversions, renewals, refunds, churn, grace periods, revenue, proceeds, MRR")
  func daily() async throws {
    let harness = try await Self.scenario()
    defer { harness.server.stop() }
    let result = try await harness.server.admin(
      "GET", "/v1/admin/stats/subscriptions?environment=sandbox&from=\(Self.iso(0))&to=\(Self.iso(70))")
    #expect(result.status == 200)
    let report = try result.decode(SubscriptionReport.self)
    #expect(report.currency == "USD" && report.environment == "Sandbox" && report.periods.count == 71)
    func on(_ day: Double) -> SubscriptionPeriod { report.periods[Int(day)] }
    #expect(on(0).newTrials == 1 && on(0).activeTrials == 1 && on(0).activeSubscriptions == 0)
    #expect(on(2).newPaidSubscriptions == 1 && on(2).activeSubscriptions == 1 && on(2).gross == 9.99)
    #expect(on(3).activeSubscriptions == 2 && on(3).gross == 59.99)
    // 9.99 + 59.99 / 12 = 14.989 (exact), shown to the cent.
    #expect(on(3).mrr == 14.99)
    #expect(on(5).refunds == 1 && on(5).refunded == 9.99 && on(5).net == -9.99)
    #expect(on(5).activeSubscriptions == 1 && on(5).expirations == 0)
    #expect(on(7).trialConversions == 1 && on(7).newPaidSubscriptions == 1 && on(7).activeTrials == 0)
    #expect(on(7).activeSubscriptions == 2 && on(7).mrr == 14.99)
    #expect(on(10).newTrials == 1 && on(10).activeTrials == 1)
    #expect(on(17).activeTrials == 0 && on(17).trialConversions == 0)
    // 9.99 × 0.7 = 6.993.
    #expect(on(37).renewals == 1 && on(37).gross == 9.99 && on(37).proceeds == 6.99)
    #expect(on(67).expirations == 1 && on(67).activeSubscriptions == 1 && on(67).churnRate == 0.5)
    #expect(on(67).gracePeriods == 1 && on(67).mrr == 5.00)
    #expect(on(67).arr == 59.99, "12 × the exact MRR (4.999), then rounded: not 12 × 5.00")
    // Totals over the range: every paid transaction once.
    let gross = report.periods.compactMap(\.gross?.amount).reduce(0, +)
    #expect(gross == Decimal(string: "89.96"))
    // A range starting later opens with the stocks accumulated before it.
    for (from, filter) in [(8.0, ""), (40.0, ""), (40.0, "&product_id=pro_monthly")] {
      let later = try await harness.server.admin(
        "GET",
        "/v1/admin/stats/subscriptions?environment=sandbox&from=\(Self.iso(from))&to=\(Self.iso(70))\(filter)"
      ).decode(SubscriptionReport.self)
      let whole = try await harness.server.admin(
        "GET", "/v1/admin/stats/subscriptions?environment=sandbox&from=\(Self.iso(0))&to=\(Self.iso(70))\(filter)"
      ).decode(SubscriptionReport.self)
      #expect(later.periods == Array(whole.periods.dropFirst(Int(from))), "from day \(from)\(filter)")
    }
  }

  @Test("by month and filtered by product; production holds none of these sandbox purchases; bad parameters are 400")
  func groupingAndFilters() async throws {
    let harness = try await Self.scenario()
    defer { harness.server.stop() }
    let server = harness.server
    let range = "from=\(Self.iso(0))&to=\(Self.iso(70))"
    let monthly = try await server.admin("GET", "/v1/admin/stats/subscriptions?environment=sandbox&by=month&\(range)")
      .decode(SubscriptionReport.self)
    #expect(monthly.periods.first?.start == Self.iso(0))
    #expect(monthly.periods.last?.end == Self.iso(70))
    #expect(monthly.periods.reduce(0) { $0 + $1.newTrials } == 2)
    #expect(monthly.periods.reduce(0) { $0 + $1.renewals } == 1)
    #expect(monthly.periods.last?.activeSubscriptions == 1)
    let annual = try await server.admin(
      "GET", "/v1/admin/stats/subscriptions?environment=sandbox&product_id=pro_annual&\(range)"
    ).decode(SubscriptionReport.self)
    #expect(annual.periods.reduce(0) { $0 + $1.newPaidSubscriptions } == 1)
    #expect(annual.periods.last?.activeSubscriptions == 1)
    let production = try await server.admin("GET", "/v1/admin/stats/subscriptions?\(range)")
      .decode(SubscriptionReport.self)
    #expect(production.periods.allSatisfy { $0.newTrials == 0 && $0.activeSubscriptions == 0 })
    for bad in ["by=year", "environment=test", "campaign_id=x", "product_id="] {
      let refused = try await server.admin("GET", "/v1/admin/stats/subscriptions?\(bad)")
      #expect(refused.status == 400 && refused.errorCode == "bad_parameter", "\(bad)")
    }
  }

  @Test("money is exact decimal rounded to the cent: three euro subscriptions at a 1.08 rate make an MRR of 32.37")
  func exactMoney() throws {
    let day = StatsDay.of(milliseconds: F.milliseconds(0))
    var counters = SubscriptionCounters()
    counters.active = 3
    counters.newPaid = 3
    counters.gross = 3 * 9_990
    counters.mrr = 3 * 9_990
    let report = SubscriptionReport.build(
      days: day...day, by: .day, environment: "Production",
      totals: [SubscriptionDayTotals(day: day, currency: "EUR", counters: counters)],
      reporting: ReportingSettings(currency: "USD", rates: ["EUR": 1.08]))
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(report), as: UTF8.self)
    // 3 × 9.99 × 1.08 = 32.3676: as binary floating point 32.367599999999996.
    #expect(text.contains(#""mrr":32.37"#) && text.contains(#""gross":32.37"#) && text.contains(#""arr":388.41"#))
    #expect(text.contains(#""proceeds":22.66"#), "32.3676 × 0.7 = 22.65732")
    #expect(text.range(of: #"\.\d{3,}"#, options: .regularExpression) == nil, "no amount beyond the cent: \(text)")
    // Without a rate for the euro the money is absent, not 0.
    let unconverted = SubscriptionReport.build(
      days: day...day, by: .day, environment: "Production",
      totals: [SubscriptionDayTotals(day: day, currency: "EUR", counters: counters)],
      reporting: ReportingSettings(currency: "USD", rates: [:]))
    #expect(unconverted.unconverted == ["EUR"])
    #expect(unconverted.periods[0].mrr == nil && unconverted.periods[0].gross == nil)
    #expect(unconverted.periods[0].activeSubscriptions == 3)
  }
}
