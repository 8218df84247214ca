import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The Apple Ads report's money, against figures worked out by hand.
@Suite("Apple Ads report: spend, CPI, ROAS, payback")
struct AppleAdsReportTests {
  static func config() throws -> CompiledConfig {
    let document = """
      {"flows": [{"id": "f", "products": ["p"]}], "placements": [{"id": "onboarding", "default": "f"}],
       "reporting": {"currency": "USD", "rates": {"EUR": 1.2}}}
      """
    return try ConfigValidator.compile(Data(document.utf8), revision: 1)
  }

  static func cohort(
    _ start: Int64, _ segment: String, age: Int64, currency: String = "USD", installs: Int64 = 0,
    net: Int64 = 0, payers: Int64 = 0, trials: Int64 = 0
  ) -> CohortTotals {
    var counters = CohortCounters()
    counters.installs = installs
    counters.net = net
    counters.payers = payers
    counters.trials = trials
    return CohortTotals(start: start, segment: segment, currency: currency, age: age, counters: counters)
  }

  @Test("spend converted with the configured rates; CPI, ROAS at 7 and 30 days and the payback day as worked out")
  func workedExample() throws {
    var counts = AppleAdsCounts(campaignId: 1, adGroupId: nil, keywordId: nil)
    counts.installs = 10
    let spend = [
      SpendFigure(level: .campaign, day: 60, campaignId: 1, currency: "USD", spend: 100_000, tapInstalls: 12),
      SpendFigure(level: .campaign, day: 95, campaignId: 1, currency: "EUR", spend: 50_000, tapInstalls: 8),
      SpendFigure(level: .campaign, day: 61, campaignId: 2, currency: "GBP", spend: 9_000, tapInstalls: 1),
    ]
    let cohorts = [
      Self.cohort(60, "1", age: 0, installs: 8),
      Self.cohort(60, "1", age: 7, net: 50_000, payers: 2, trials: 1),
      Self.cohort(60, "1", age: 30, net: 150_000),
      Self.cohort(95, "1", age: 0, installs: 2),
      Self.cohort(95, "1", age: 3, currency: "EUR", net: 10_000),
      Self.cohort(61, "organic", age: 0, installs: 40),
    ]
    let report = AppleAdsReport.build(
      days: 60...100, by: .campaign, counts: [counts], spend: spend,
      names: [AdsEntityName(level: .campaign, id: 1, name: "Brand")], cohorts: cohorts, config: try Self.config(),
      today: 100)
    #expect(report.currency == "USD" && report.rates == ["EUR": 1.2] && report.unconverted == ["GBP"])
    let row = try #require(report.rows.first { $0.campaignId == 1 })
    #expect(row.campaignName == "Brand")
    let figures = try #require(row.spend)
    // 100 USD + 50 EUR × 1.2.
    #expect(figures.total == 160 && figures.byCurrency == ["USD": 100, "EUR": 50])
    #expect(figures.appleInstalls == 20 && figures.installGap == 10)
    #expect(figures.cpi == 8 && figures.cpiAttributed == 16)
    #expect(figures.trials == 1 && figures.payingUsers == 2)
    // Net to date 50 + 150 + 10 EUR × 1.2 = 212; proceeds after 30 %: 148.4.
    #expect(figures.netRevenue == 212 && figures.proceeds == 148.4)
    #expect(abs(figures.roas! - 212.0 / 160) < 1e-9)
    // Day 7 and 30: only day 60 is that old; its 100 USD against 50 and 200 of net.
    #expect(abs(figures.roasDay7! - 0.5) < 1e-9 && figures.proceedsDay7 == 35)
    #expect(abs(figures.roasDay30! - 2) < 1e-9 && figures.proceedsDay30 == 140)
    // Proceeds first cover spend at 30 days (35 < 100 at 7 and 14, 140 ≥ 100 at 30).
    #expect(figures.paybackDay == 30)
    #expect(figures.curve.first?.age == 0 && figures.curve.first?.spendPerInstall == 16)
    #expect(figures.curve.map(\.age) == [0, 1, 3, 7, 14, 30])
    // A campaign whose only spend has no rate: shown per currency; the converted figures are
    // absent, never 0 (a CPI of 0 reads as free installs).
    let other = try #require(report.rows.first { $0.campaignId == 2 }?.spend)
    #expect(other.byCurrency == ["GBP": 9] && other.total == nil && other.paybackDay == nil)
    #expect(other.cpi == nil && other.cpiAttributed == nil && other.roas == nil)
    #expect(other.curve.allSatisfy { $0.spendPerInstall == nil })
  }

  @Test("by keyword, an ad group's spend beyond its keywords is search match (keyword 0)")
  func searchMatch() throws {
    let spend = [
      SpendFigure(
        level: .adGroup, day: 10, campaignId: 1, adGroupId: 2, currency: "USD", spend: 30_000, tapInstalls: 9),
      SpendFigure(
        level: .keyword, day: 10, campaignId: 1, adGroupId: 2, keywordId: 3, currency: "USD", spend: 12_000,
        tapInstalls: 4),
      SpendFigure(level: .campaign, day: 10, campaignId: 1, currency: "USD", spend: 30_000, tapInstalls: 9),
    ]
    let report = AppleAdsReport.build(
      days: 10...10, by: .keyword, counts: [], spend: spend, config: try Self.config(), today: 20)
    #expect(report.rows.map(\.keywordId) == [0, 3])
    #expect(report.rows[0].spend?.total == 18 && report.rows[0].spend?.appleInstalls == 5)
    #expect(report.rows[1].spend?.total == 12 && report.rows[1].installs == 0)
    let byCampaign = AppleAdsReport.build(
      days: 10...10, by: .campaign, counts: [], spend: spend, config: try Self.config(), today: 20)
    #expect(byCampaign.rows.map { $0.spend?.total } == [30])
  }
}
