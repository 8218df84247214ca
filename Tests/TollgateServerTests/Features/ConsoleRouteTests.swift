import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The reads only the console makes: the experiment chart's daily series, revenue per period,
/// the attribution funnel, profile search and a profile's activity (SQLite and PostgreSQL).
@Suite("Console routes")
struct ConsoleRouteTests {
  typealias F = StoreKitFixtures

  @Test(
    "the daily series adds up to the report, and the revenue totals to every paywall's",
    arguments: StoreFactory.available)
  func seriesAndTotals(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "console")
    try RollupTests().populate(store, appId: app.id, seed: 7, imports: 0)
    let first = StatsDay.of(F.date(0))
    for days in [first...(first + 6), (first + 2)...(first + 3)] {
      var revenue: [String: MoneyFigures] = [:]
      for placement in ["onboarding", "settings_upgrade", ""] {
        let counts = try store.placementStats(appId: app.id, placementId: placement, days: days)
        let series = try store.placementDays(appId: app.id, placementId: placement, days: days)
        for variation in counts where !placement.isEmpty {
          let rows = series.filter { $0.variationId == variation.variationId }
          #expect(rows.reduce(0) { $0 + $1.uniqueViewers } == variation.viewers, "\(variation.variationId) viewers")
          #expect(rows.reduce(0) { $0 + $1.impressions } == variation.impressions, "\(variation.variationId) views")
          #expect(rows.reduce(0) { $0 + $1.purchasers } == variation.purchasers, "\(variation.variationId) buyers")
          #expect(rows.allSatisfy { $0.audienceId == variation.audienceId })
        }
        #expect(series.map(\.day) == series.map(\.day).sorted(), "oldest first")
        for variation in counts {
          for (currency, money) in variation.revenue {
            revenue[currency, default: MoneyFigures()].gross += money.gross
            revenue[currency, default: MoneyFigures()].refunded += money.refunded
            revenue[currency, default: MoneyFigures()].transactions += money.transactions
          }
        }
      }
      let totals = try store.revenueTotals(appId: app.id, days: days)
      #expect(totals == revenue.filter { $0.value != MoneyFigures() })
      #expect(!totals.isEmpty)
    }
    #expect(try store.revenueTotals(appId: app.id, days: (first - 30)...(first - 1)).isEmpty)
  }

  @Test("the funnel counts each token by what became of it", arguments: StoreFactory.available)
  func funnel(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "funnel")
    let other = try store.createApp(name: "other")
    var jobs: [AttributionJob] = []
    for (index, appId) in [app.id, app.id, app.id, app.id, app.id, other.id].enumerated() {
      let id = String(format: "00000000-0000-4000-8000-%012d", index)
      _ = try store.insertProfile(appId: appId, ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0)))
      jobs.append(
        try store.enqueueAttribution(
          appId: appId, profileId: id, token: "t\(index)", tokenHash: "h\(index)", at: F.date(0)
        )
        .0)
    }
    var payload = AppleAdsPayload(attribution: true)
    payload.campaignId = 1
    let outcomes: [AttributionOutcome] = [
      .final(.applied, payload: payload, attempts: 1, error: nil),
      .final(.notAttributed, payload: nil, attempts: 1, error: nil),
      .final(.invalid, payload: nil, attempts: 1, error: "400"),
      .retry(at: F.date(1), attempts: 1, notFound: 1, error: "404"),
    ]
    for (job, outcome) in zip(jobs, outcomes) {
      _ = try store.finishAttribution(
        job, outcome, at: F.date(0), webhooks: [], settle: { AttributionWorker.settle($0, outcome, at: F.date(0)) })
    }
    let funnel = try store.attributionFunnel(appId: app.id)
    #expect(funnel.received == 5)
    #expect(funnel.applied == 1 && funnel.notAttributed == 1 && funnel.failed == 1)
    #expect(funnel.pending == 2 && funnel.resolved == 3)
    #expect(try store.attributionFunnel(appId: other.id).received == 1)
  }

  @Test("the overview carries this app's funnel and revenue per period")
  func overview() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let overview = try #require(try await server.admin("GET", "/v1/admin/overview").json?.objectValue)
    #expect(
      overview["funnel"]?.objectValue?["received"] == .int(0) && overview["funnel"]?.objectValue?["resolved"] == .int(0)
    )
    let periods = try #require(overview["revenue"]?.arrayValue)
    #expect(periods.map { $0.objectValue?["period"] } == [.string("today"), .string("7_days"), .string("30_days")])
    let today = PlacementReport.isoDay(StatsDay.of(server.time.now()))
    #expect(periods.allSatisfy { $0.objectValue?["to"] == .string(today) })
    #expect(periods[0].objectValue?["from"] == .string(today))
    #expect(periods.allSatisfy { $0.objectValue?["transactions"] == .int(0) })
    #expect(overview["reporting_currency"] == .string("USD"))
  }

  @Test("profiles are found by customer user id; the activity lists views; bad input gets clear errors")
  func profiles() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = UUID().uuidString.lowercased()
    _ = try await server.createProfile(id)
    #expect(
      try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"customer_user_id":"user 7"}"#).status == 200)
    let found = try await server.admin("GET", "/v1/admin/profiles?customer_user_id=user%207")
    #expect(found.status == 200)
    #expect(found.json?.objectValue?["profiles"]?.arrayValue?.map { $0.objectValue?["id"] } == [.string(id)])
    let none = try await server.admin("GET", "/v1/admin/profiles?customer_user_id=nobody")
    #expect(none.json?.objectValue?["profiles"] == .array([]))
    let missing = try await server.admin("GET", "/v1/admin/profiles")
    #expect(
      missing.status == 400 && missing.json?.objectValue?["error"]?.objectValue?["code"] == .string("bad_parameter"))

    let flow = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)")
    let variation = try #require(flow.json?.objectValue?["flow"]?.objectValue?["variation_id"]?.stringValue)
    let event =
      #"{"events":[{"type":"flow_shown","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"\#(variation)"}]}"#
    #expect(try await server.sdk("POST", "/v1/sdk/events", json: event).status < 300)
    let activity = try #require(try await server.admin("GET", "/v1/admin/profiles/\(id)/activity").json?.objectValue)
    #expect(activity["profile_id"] == .string(id))
    let events = try #require(activity["events"]?.arrayValue)
    #expect(events.count == 1 && events[0].objectValue?["variation_id"] == .string(variation))
    #expect(activity["transactions"] == .array([]) && activity["assignments"] == .array([]))
    #expect(activity["apple_ads"] == nil)
    let unknown = try await server.admin("GET", "/v1/admin/profiles/\(UUID().uuidString)/activity")
    #expect(unknown.status == 404)
    #expect(try await server.sdk("GET", "/v1/admin/profiles/\(id)/activity").status == 403)

    let days = try await server.admin("GET", "/v1/admin/stats/placements/onboarding/days")
    let rows = try #require(days.json?.objectValue?["days"]?.arrayValue)
    #expect(rows.count == 1 && rows[0].objectValue?["unique_viewers"] == .int(1))
    #expect(try await server.admin("GET", "/v1/admin/stats/placements/nowhere/days").status == 404)
    #expect(try await server.admin("GET", "/v1/admin/stats/placements/onboarding/days?from=2026-13-01").status == 400)
  }

  @Test("a profile's assignments are listed", arguments: StoreFactory.available)
  func assignments(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "assignments")
    let id = "00000000-0000-4000-8000-000000000001"
    _ = try store.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0)))
    let key = AssignmentKey(appId: app.id, profileId: id, placementId: "onboarding", audienceId: "apple_ads_brand")
    _ = try store.assign(key, variationId: "onboarding:apple_ads_brand:aa_offer_b", at: F.date(1))
    let rows = try store.assignments(appId: app.id, profileId: id)
    #expect(
      rows == [
        AssignmentRow(
          placementId: "onboarding", audienceId: "apple_ads_brand",
          variationId: "onboarding:apple_ads_brand:aa_offer_b",
          assignedAt: Timestamp.string(F.date(1)))
      ])
    #expect(try store.assignments(appId: app.id, profileId: "00000000-0000-4000-8000-000000000002").isEmpty)
  }
}
