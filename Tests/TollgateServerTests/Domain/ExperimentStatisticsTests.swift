import Foundation
import Testing
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The decision statistic against values SciPy computed independently
/// (`Fixtures/experiments/compute.py` → `cases.json`).
@Suite("Experiment statistics")
struct ExperimentStatisticsTests {
  struct Fixture: Decodable {
    struct Case: Decodable {
      let variations: [[Int64]]
      let credibleIntervals: [[Double]]
      let probabilityToBeBest: [Double]

      enum CodingKeys: String, CodingKey {
        case variations
        case credibleIntervals = "credible_intervals"
        case probabilityToBeBest = "probability_to_be_best"
      }
    }
    let cases: [Case]
  }

  static let fixture = try! JSONDecoder().decode(
    Fixture.self, from: Data(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/experiments/cases.json")))

  @Test("credible intervals and probabilities to be best match the independent computation")
  func fixtures() {
    for (number, fixture) in Self.fixture.cases.enumerated() {
      let arms = fixture.variations.map { (viewers: $0[0], purchasers: $0[1]) }
      for (arm, expected) in zip(arms, fixture.credibleIntervals) {
        let interval = ConversionStatistics.credibleInterval(viewers: arm.viewers, purchasers: arm.purchasers)
        #expect(abs(interval.lower - expected[0]) < 1e-9, "case \(number) \(arm)")
        #expect(abs(interval.upper - expected[1]) < 1e-9, "case \(number) \(arm)")
      }
      let best = ConversionStatistics.probabilityToBeBest(arms)
      for (value, expected) in zip(best, fixture.probabilityToBeBest) {
        #expect(abs(value - expected) < 1e-5, "case \(number): \(best) vs \(fixture.probabilityToBeBest)")
      }
    }
  }

  @Test("the distribution function and its quantiles invert each other")
  func inverse() {
    for (a, b) in [(1.0, 1.0), (2.0, 5.0), (101.0, 901.0), (1501.0, 48_501.0)] {
      for p in [0.001, 0.025, 0.5, 0.975, 0.999] {
        let x = BetaDistribution.quantile(p, a, b)
        #expect(abs(BetaDistribution.cumulative(x, a, b) - p) < 1e-9)
      }
    }
  }

  @Test("large experiments: the distribution function carried along the grid agrees with the continued fraction")
  func carriedDistribution() {
    let cases: [[(viewers: Int64, purchasers: Int64)]] = [
      [(10_000, 412), (10_000, 455), (9_800, 430), (10_100, 401)],
      [(40_000, 1_210), (39_000, 1_300)],
      [(150, 9), (120_000, 7_400), (2_000, 130)],
      [(1_000_000, 31_000), (1_000_000, 31_400), (999_000, 30_950)],
    ]
    for arms in cases {
      // The integral with the continued fraction at every grid point, as it was computed before.
      let parameters = arms.map { ConversionStatistics.posterior(viewers: $0.viewers, purchasers: $0.purchasers) }
      var exact: [Double] = []
      for (index, (a, b)) in parameters.enumerated() {
        let low = BetaDistribution.quantile(1e-9, a, b)
        let width = (BetaDistribution.quantile(1 - 1e-9, a, b) - low) / 4_000
        var sum = 0.0
        for step in 0...4_000 {
          let x = low + Double(step) * width
          var value = BetaDistribution.density(x, a, b)
          for (other, (c, d)) in parameters.enumerated() where other != index {
            value *= BetaDistribution.cumulative(x, c, d)
          }
          sum += (step == 0 || step == 4_000 ? 1 : (step % 2 == 1 ? 4 : 2)) * value
        }
        exact.append(sum * width / 3)
      }
      let total = exact.reduce(0, +)
      let fast = ConversionStatistics.probabilityToBeBest(arms)
      for (got, expected) in zip(fast, exact.map { $0 / total }) {
        #expect(abs(got - expected) < 1e-9, "\(arms): \(fast) vs \(exact.map { $0 / total })")
      }
    }
  }

  @Test("revenue converts exactly into the reporting currency; an amount without a rate leaves the total absent")
  func conversion() {
    let reporting = ReportingSettings(currency: "USD", rates: ["EUR": 1.5, "GBP": 1.27])
    // Milliunits: 10 USD, 4 EUR, 2 EUR refunded.
    let converted = reporting.convert(
      gross: ["USD": 10_000, "EUR": 4_000], refunded: ["EUR": 2_000], viewers: 1_000, purchasers: 4)
    #expect(converted.gross == 16 && converted.refunded == 3 && converted.unconverted.isEmpty)
    #expect(converted.perThousandViewers == 16)
    #expect(converted.arppu == 4)
    #expect(reporting.convert(gross: [:], viewers: 0, purchasers: 0).perThousandViewers == nil)
    // 3 × 1.27 GBP + 0.10 USD: exact decimals, no 3.9100000000000006.
    let pounds = reporting.convert(gross: ["GBP": 3_000, "USD": 100], viewers: nil, purchasers: 3)
    #expect(pounds.gross?.amount == Decimal(string: "3.91") && pounds.arppu == 1.30)
    // Yen without a rate: the converted figures are absent (a partial total would read as the
    // whole), the currency named.
    let partial = reporting.convert(
      gross: ["USD": 10_000, "JPY": 1_000_000], refunded: ["USD": 1_000], viewers: 1_000, purchasers: 4)
    #expect(partial.gross == nil && partial.perThousandViewers == nil && partial.arppu == nil)
    #expect(partial.refunded == 1 && partial.unconverted == ["JPY"])
  }

  @Test("money is rounded to its currency's minor unit and written without a float's noise")
  func moneyEncoding() throws {
    #expect(Money(thousandths: 215_670_600, currency: "USD").amount == Decimal(string: "215670.6"))
    #expect(Money(Decimal(string: "215.6706")!, currency: "USD").text == "215.67")
    #expect(Money(thousandths: 230_000, currency: "JPY").text == "230")
    #expect(Money(thousandths: 1_234_567, currency: "KWD").text == "1234.567")
    #expect(Money(thousandths: 9_900, currency: "EUR").text == "9.90")
    #expect(Money(thousandths: -5, currency: "USD").text == "-0.01", "half away from zero")
    struct Row: Codable { var mrr: Money }
    let sum = (0..<3).reduce(Decimal(0)) { total, _ in total + Decimal(string: "71.8902")! }
    let json = String(decoding: try JSONEncoder().encode(Row(mrr: Money(sum, currency: "USD"))), as: UTF8.self)
    #expect(json == #"{"mrr":215.67}"#)
    #expect(try JSONDecoder().decode(Row.self, from: Data(json.utf8)).mrr == 215.67)
  }
}
