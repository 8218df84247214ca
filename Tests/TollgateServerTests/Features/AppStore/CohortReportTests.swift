import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Install cohorts through the real routes: profiles created on the server's clock, a flow
/// shown, signed purchases, a renewal and a refund; every figure checked against the scenario.
@Suite("Cohort report")
struct CohortReportTests {
  typealias F = StoreKitFixtures

  static func iso(_ day: Double) -> String { PlacementReport.isoDay(StatsDay.of(milliseconds: F.milliseconds(day))) }

  /// Week 1 (day 0, a Monday): A is shown the onboarding flow and pays monthly on day 1 (renewed
  /// on day 31), B starts a trial that lapses, C does nothing. Week 2: D installs on day 7, pays
  /// yearly on day 8, refunded on day 10. Today is day 40.
  static func scenario() async throws -> PurchaseRouteTests.Harness {
    let harness = try await PurchaseRouteTests.Harness()
    let server = harness.server
    let (a, b) = (try await server.createProfile(), try await server.createProfile())
    _ = try await server.createProfile()
    let shown = try await server.sdk(
      "POST", "/v1/sdk/events",
      json: #"""
        {"events":[{"type":"flow_shown","event_id":"e1","profile_id":"\#(a)","placement_id":"onboarding","variation_id":"onboarding:default:standard"}]}
        """#)
    #expect(shown.status == 200)
    func post(_ transaction: TransactionPayload, _ profile: String) async throws {
      #expect(try await harness.post(transaction, profile: profile).status == 200)
    }
    try await post(F.transaction("100", original: "100", purchased: 1, expires: 31), a)
    try await post(F.transaction("101", original: "100", purchased: 31, expires: 61, reason: "RENEWAL"), a)
    try await post(
      F.transaction("200", original: "200", purchased: 0, expires: 7, offerType: 1, discount: "FREE_TRIAL", price: 0), b
    )
    server.time.advance(days: 7)
    let d = try await server.createProfile()
    try await post(
      F.transaction("300", original: "300", product: "pro_annual", purchased: 8, expires: 373, price: 59_990), d)
    try await post(
      F.transaction(
        "300", original: "300", product: "pro_annual", purchased: 8, expires: 373, signed: 10, revoked: 10,
        price: 59_990), d)
    server.time.advance(days: 33)
    return harness
  }

  @Test("weekly cohorts: installs, paying share, trials, active subscriptions and LTV at each reached age")
  func weekly() async throws {
    let harness = try await Self.scenario()
    defer { harness.server.stop() }
    let report = try await harness.server.admin(
      "GET", "/v1/admin/stats/cohorts?environment=sandbox&from=\(Self.iso(0))&to=\(Self.iso(13))"
    ).decode(CohortReport.self)
    #expect(report.by == "week" && report.currency == "USD" && report.cohorts.count == 2)
    let first = report.cohorts[0]
    #expect(first.start == Self.iso(0) && first.end == Self.iso(6) && first.installs == 3)
    // Week 1 ends on day 6; today is day 40: ages up to 34 are reached.
    #expect(first.ages.map(\.age) == [0, 1, 3, 7, 14, 30])
    #expect(first.ages[0].payingShare == 0 && first.ages[0].trials == 1 && first.ages[0].activeSubscriptions == 0)
    #expect(abs(first.ages[1].payingShare - 1.0 / 3) < 1e-12 && first.ages[1].activeSubscriptions == 1)
    #expect(first.ages[1].netPerInstall == 3.33)
    // The renewal on day 31 is age 31: not yet in age 30; the subscription is still active.
    #expect(first.ages[5].netPerInstall == 3.33 && first.ages[5].activeSubscriptions == 1)
    // 9.99 × 0.7 / 3 = 2.331.
    #expect(first.ages[5].proceedsPerInstall == 2.33)
    let second = report.cohorts[1]
    #expect(second.installs == 1 && second.ages.map(\.age) == [0, 1, 3, 7, 14])
    #expect(second.ages[1].payingShare == 1 && second.ages[1].netPerInstall == 59.99)
    // Refunded at age 3: the money and the subscription are gone; the payer stays a payer.
    #expect(second.ages[2].netPerInstall == 0 && second.ages[2].activeSubscriptions == 0)
    #expect(second.ages[2].payingShare == 1)
  }

  @Test("segments: the first paywall shown, organic vs Apple Ads; Production money is separate; bad parameters are 400")
  func segments() async throws {
    let harness = try await Self.scenario()
    defer { harness.server.stop() }
    let server = harness.server
    let range = "from=\(Self.iso(0))&to=\(Self.iso(6))"
    let byVariation = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?environment=sandbox&segment=variation&\(range)"
    ).decode(CohortReport.self)
    let segments = Dictionary(uniqueKeysWithValues: byVariation.cohorts.map { ($0.segment, $0) })
    #expect(segments["onboarding:default:standard"]?.installs == 1)
    #expect(segments["onboarding:default:standard"]?.ages[1].payingShare == 1)
    #expect(segments["no paywall shown"]?.installs == 2)
    #expect(segments["no paywall shown"]?.ages.last?.payingShare == 0)
    let bySource = try await server.admin("GET", "/v1/admin/stats/cohorts?segment=source&\(range)")
      .decode(CohortReport.self)
    #expect(bySource.cohorts.map(\.segment) == ["organic"] && bySource.cohorts[0].installs == 3)
    #expect(bySource.cohorts[0].ages.allSatisfy { $0.payingShare == 0 }, "no Production money in a Sandbox scenario")
    // A storefront learned later moves the install to its country's cohort.
    let someone = try await server.createProfile()
    let moved = try await server.sdk(
      "PATCH", "/v1/sdk/profiles/\(someone)", json: #"{"install":{"store_country":"FRA"}}"#)
    #expect(moved.status == 200)
    let today = PlacementReport.isoDay(StatsDay.of(server.time.now()))
    let byCountry = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?segment=country&by=day&from=\(today)&to=\(today)"
    ).decode(CohortReport.self)
    #expect(byCountry.cohorts.map(\.segment) == ["FRA"] && byCountry.cohorts.first?.installs == 1)
    // A storefront the SDK sent as "others" stays its own cohort beside the summed `others`.
    for country in ["others", "others", "DEU", "ITA"] {
      let profile = try await server.createProfile()
      let patched = try await server.sdk(
        "PATCH", "/v1/sdk/profiles/\(profile)", json: #"{"install":{"store_country":"\#(country)"}}"#)
      #expect(patched.status == 200)
    }
    let topped = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?segment=country&top=1&by=day&from=\(today)&to=\(today)")
    #expect(topped.json?.objectValue?["segments_in_others"] == .int(3))
    let cohorts = topped.json?.objectValue?["cohorts"]?.arrayValue?.compactMap(\.objectValue) ?? []
    #expect(cohorts.map { $0["segment"] } == [.string("others"), .string("others")], "\(cohorts)")
    #expect(cohorts.map { $0["installs"] } == [.int(2), .int(3)], "\(cohorts)")
    #expect(cohorts.map { $0["others"] } == [nil, .bool(true)], "\(cohorts)")
    for bad in ["segment=planet", "by=year", "environment=test", "from=2026-13-01"] {
      let refused = try await server.admin("GET", "/v1/admin/stats/cohorts?\(bad)")
      #expect(refused.status == 400 && refused.errorCode == "bad_parameter", "\(bad)")
    }
  }
}
