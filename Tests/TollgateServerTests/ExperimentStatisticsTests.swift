import Foundation
import Testing
import TollgateTestSupport

@testable import TollgateServer

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

  @Test("revenue converts into the reporting currency only with configured rates")
  func conversion() {
    let reporting = ReportingSettings(currency: "USD", rates: ["EUR": 1.5])
    let converted = reporting.convert(
      gross: ["USD": 10, "EUR": 4, "JPY": 1_000], refunded: ["EUR": 2], viewers: 1_000, purchasers: 4)
    #expect(converted.gross == 16)
    #expect(converted.refunded == 3)
    #expect(converted.unconverted == ["JPY"])
    #expect(converted.perThousandViewers == 16)
    #expect(converted.arppu == 4)
    #expect(reporting.convert(gross: [:], viewers: 0, purchasers: 0).perThousandViewers == nil)
  }
}
