import Foundation
import Testing
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The revenue-per-viewer model against PyPI bayesian-testing's delta-lognormal evaluation
/// (`Fixtures/experiments/revenue/compute.py` → `cases.json`): a different implementation with a
/// different random stream, so figures agree within the Monte Carlo error the fixture states.
@Suite("Revenue statistics")
struct RevenueStatisticsTests {
  struct Fixture: Decodable {
    struct Variation: Decodable {
      let viewers: Int64
      let payers: Int64
      let sum_log: Double
      let sum_log_squares: Double
    }
    struct Expected: Decodable {
      let probability_to_be_best: Double
      let probability_tolerance: Double
      let expected_loss: Double
      let expected_loss_tolerance: Double
      let interval: [Double]
      let interval_tolerance: [Double]
      let mean: Double
      let mean_tolerance: Double
    }
    struct Case: Decodable {
      let name: String
      let variations: [Variation]
      let expected: [Expected]
    }
    struct Prior: Decodable {
      let m: Double
      let a: Double
      let b: Double
      let w: Double
    }
    let draws: Int
    let prior: Prior
    let cases: [Case]
  }

  static let fixture = try! JSONDecoder().decode(
    Fixture.self,
    from: Data(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/experiments/revenue/cases.json")))

  @Test("the fixture was computed with Tollgate's draw count and prior")
  func sameModel() {
    let fixture = Self.fixture
    #expect(fixture.draws == RevenueStatistics.draws)
    #expect(fixture.prior.m == RevenueStatistics.priorMean)
    #expect(fixture.prior.w == RevenueStatistics.priorWeight)
    #expect(fixture.prior.a == RevenueStatistics.priorShape)
    #expect(fixture.prior.b == RevenueStatistics.priorScale)
  }

  @Test("means, intervals, probabilities to be best and expected losses match the independent computation")
  func fixtures() {
    for fixture in Self.fixture.cases {
      let samples = fixture.variations.map {
        RevenueSample(viewers: $0.viewers, payers: $0.payers, sumLog: $0.sum_log, sumLogSquares: $0.sum_log_squares)
      }
      let estimates = RevenueStatistics.compare(samples)
      #expect(estimates.count == fixture.expected.count)
      for (index, (estimate, expected)) in zip(estimates, fixture.expected).enumerated() {
        let label = "\(fixture.name), variation \(index): \(estimate)"
        #expect(abs(estimate.mean - expected.mean) <= expected.mean_tolerance, "\(label)")
        #expect(abs(estimate.interval.lower - expected.interval[0]) <= expected.interval_tolerance[0], "\(label)")
        #expect(abs(estimate.interval.upper - expected.interval[1]) <= expected.interval_tolerance[1], "\(label)")
        #expect(
          abs(estimate.probabilityToBeBest - expected.probability_to_be_best) <= expected.probability_tolerance,
          "\(label)")
        #expect(abs(estimate.expectedLoss - expected.expected_loss) <= expected.expected_loss_tolerance, "\(label)")
      }
      let total: Double = estimates.map(\.probabilityToBeBest).reduce(0, +)
      #expect(abs(total - 1) < 1e-12)
    }
  }

  @Test("the same data and seed give the same figures; another seed moves them within the error")
  func reproducible() {
    let samples = [
      RevenueSample(viewers: 1000, revenues: (0..<40).map { 5 + Double($0 % 7) }),
      RevenueSample(viewers: 1000, revenues: (0..<50).map { 4 + Double($0 % 5) }),
    ]
    #expect(RevenueStatistics.compare(samples) == RevenueStatistics.compare(samples))
    let other = RevenueStatistics.compare(samples, seed: 7)
    for (a, b) in zip(RevenueStatistics.compare(samples), other) {
      #expect(a != b)
      #expect(abs(a.probabilityToBeBest - b.probabilityToBeBest) < 0.02)
    }
  }

  @Test("no payer means no revenue: every draw of that variation is 0")
  func noPayer() {
    let estimates = RevenueStatistics.compare([
      RevenueSample(viewers: 500, payers: 0, sumLog: 0, sumLogSquares: 0),
      RevenueSample(viewers: 500, revenues: [9.99, 9.99, 19.99]),
    ])
    #expect(estimates[0].mean == 0 && estimates[0].interval == (0, 0))
    #expect(estimates[0].probabilityToBeBest == 0)
    #expect(estimates[1].probabilityToBeBest == 1)
    #expect(estimates[0].expectedLoss == estimates[1].mean)
  }

  @Test("every payer paying exactly one unit (log revenue 0, no spread) still gives finite draws")
  func degenerate() {
    let estimates = RevenueStatistics.compare([
      RevenueSample(viewers: 200, revenues: Array(repeating: 1, count: 20)),
      RevenueSample(viewers: 200, revenues: Array(repeating: 1, count: 25)),
    ])
    for estimate in estimates { #expect(estimate.mean.isFinite && estimate.interval.upper.isFinite) }
    #expect(abs(estimates[0].mean - 21.0 / 202) < 0.002)
  }
}
