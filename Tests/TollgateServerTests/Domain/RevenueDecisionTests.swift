import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// An experiment's decision follows its configured metric: revenue per viewer by default, so a
/// free-trial paywall whose trials rarely pay does not win on trial starts.
@Suite("Revenue-based experiment decisions")
struct RevenueDecisionTests {
  static func config(metric: String?) throws -> CompiledConfig {
    let chosen = metric.map { #","decision_metric":"\#($0)""# } ?? ""
    return try ConfigValidator.compile(
      Data(
        #"""
        {"flows":[{"id":"trial","products":["p"]},{"id":"paid","products":["p"]}],
         "audiences":[{"id":"everyone","rule":{}}],
         "placements":[{"id":"onboarding","default":"paid","targets":[{"audience":"everyone","experiment":
           {"name":"Trial or paid"\#(chosen),"variations":[{"flow":"trial","weight":50},{"flow":"paid","weight":50}]}}]}],
         "reporting":{"currency":"USD","rates":{"EUR":1.25}}}
        """#.utf8), revision: 1)
  }

  /// Payers with these net revenues (milliunits).
  static func payers(_ nets: [Int64]) -> PayerMoments {
    nets.reduce(PayerMoments()) { total, net in total + PayerMoments.payer(net: net) }
  }

  /// `count` amounts from `start` units up by 0.1 each.
  static func amounts(_ count: Int, from start: Double) -> [Double] {
    (0..<count).map { start + Double($0) / 10 }
  }

  static func milliunits(_ amounts: [Double]) -> [Int64] { amounts.map { Int64(($0 * 1000).rounded()) } }

  /// 1 000 viewers each. `trial`: 200 purchasers (mostly trial starts), 20 payers at about $10;
  /// `paid`: 80 purchasers, 60 payers at about $30, a third of them paying in euros.
  static func counts() -> [VariationCounts] {
    var trial = VariationCounts(
      placementId: "onboarding", audienceId: "everyone", variationId: "onboarding:everyone:trial")
    trial.viewers = 1000
    trial.purchasers = 200
    trial.trials = 190
    trial.payers["USD"] = payers(milliunits(amounts(20, from: 9)))
    var paid = VariationCounts(
      placementId: "onboarding", audienceId: "everyone", variationId: "onboarding:everyone:paid")
    paid.viewers = 1000
    paid.purchasers = 80
    paid.payers["USD"] = payers(milliunits(amounts(40, from: 28)))
    paid.payers["EUR"] = payers(milliunits(amounts(20, from: 24)))
    return [trial, paid]
  }

  @Test("by default the variation that earns more per viewer leads, though the other converts more")
  func revenueByDefault() throws {
    let report = PlacementReport.build(
      placementId: "onboarding", days: 0...30, counts: Self.counts(), config: try Self.config(metric: nil))
    let audience = try #require(report.audiences.first)
    let decision = try #require(audience.decision)
    #expect(decision.metric == "revenue_per_viewer")
    #expect(decision.status == "ok" && decision.leader == "onboarding:everyone:paid")
    #expect(decision.conversion.leader == "onboarding:everyone:trial")
    #expect(decision.revenuePerViewer.leader == "onboarding:everyone:paid")
    #expect((decision.revenuePerViewer.probability ?? 0) > 0.999)
    #expect(decision.currency == "USD")
    let paid = audience.variations[0]
    let trial = audience.variations[1]
    #expect(paid.variationId == "onboarding:everyone:paid")
    #expect(paid.payingViewers == 60 && trial.payingViewers == 20)
    // Net revenue to date in USD: the euro payers converted at 1.25.
    let dollars = Self.milliunits(Self.amounts(40, from: 28)).reduce(0, +)
    let euros = Self.milliunits(Self.amounts(20, from: 24)).reduce(0, +)
    let exact = (Decimal(dollars) + Decimal(euros) * Decimal(string: "1.25")!) / 1000
    #expect(paid.netRevenue == Money(exact, currency: "USD"))
    #expect(paid.revenuePerViewer == Money(exact / 1000, currency: "USD"))
    let paidNet = NSDecimalNumber(decimal: exact).doubleValue
    let interval = try #require(paid.revenuePerViewerInterval)
    #expect(interval[0] < paidNet / 1000 && paidNet / 1000 < interval[1])
    #expect((trial.revenueExpectedLoss ?? 0) > 1.0 && (paid.revenueExpectedLoss ?? 1) < 0.001)
  }

  @Test("decision_metric conversion makes the conversion leader the decision")
  func conversionWhenConfigured() throws {
    let report = PlacementReport.build(
      placementId: "onboarding", days: 0...30, counts: Self.counts(), config: try Self.config(metric: "conversion"))
    let decision = try #require(report.audiences.first?.decision)
    #expect(decision.metric == "conversion")
    #expect(decision.leader == "onboarding:everyone:trial")
    #expect(decision.revenuePerViewer.leader == "onboarding:everyone:paid")
  }

  @Test("an unknown decision metric is refused at its path")
  func unknownMetric() {
    #expect {
      try Self.config(metric: "clicks")
    } throws: { error in
      (error as? DomainError)?.details?.contains {
        $0.path == "$.placements[0].targets[0].experiment.decision_metric"
      } == true
    }
  }

  @Test("below 10 paying viewers in a variation the revenue verdict is not_enough_data; conversion may still decide")
  func notEnoughPayers() throws {
    var counts = Self.counts()
    counts[0].payers["USD"] = Self.payers(Self.milliunits(Self.amounts(9, from: 9)))
    let decision = try #require(
      PlacementReport.build(
        placementId: "onboarding", days: 0...30, counts: counts, config: try Self.config(metric: nil)
      ).audiences.first?.decision)
    #expect(decision.status == "not_enough_data" && decision.leader == nil)
    #expect(decision.revenuePerViewer.status == "not_enough_data")
    #expect(decision.conversion.status == "ok")
  }

  @Test("payers in two currencies without a reporting currency: no revenue comparison, said so")
  func noCurrency() throws {
    let report = PlacementReport.build(placementId: "onboarding", days: 0...30, counts: Self.counts(), config: nil)
    let decision = try #require(report.audiences.first?.decision)
    #expect(decision.revenuePerViewer.status == "no_revenue_currency")
    #expect(report.audiences.first?.variations.allSatisfy { $0.revenuePerViewer == nil } == true)
  }

  @Test("a converted currency shifts every log by log(rate): the sample equals one computed in USD")
  func conversionOfLogs() throws {
    let config = try Self.config(metric: nil)
    let sample = PlacementReport.revenueSample(Self.counts()[1], currency: "USD", config.reporting)
    let revenues: [Double] = Self.amounts(40, from: 28) + Self.amounts(20, from: 24).map { $0 * 1.25 }
    let direct = RevenueSample(viewers: 1000, revenues: revenues)
    #expect(sample.payers == direct.payers)
    #expect(abs(sample.sumLog - direct.sumLog) < 1e-4)
    #expect(abs(sample.sumLogSquares - direct.sumLogSquares) < 1e-3)
  }
}
