import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The revenue model's Monte Carlo step alone: `RevenueStatistics.compare` for 4 variations
/// (65 536 draws each), timed over 30 runs.
enum MonteCarlo {
  static func run() {
    let samples = (0..<4).map { index in
      RevenueSample(
        viewers: 20_000, revenues: (0..<(400 + 40 * index)).map { 5 + Double(($0 * 7 + index) % 40) })
    }
    let timings = Timings(runs: 30) { _ = RevenueStatistics.compare(samples) }
    print(
      String(
        format: "4 variations × %d draws: median %.1f ms, worst %.1f ms (30 runs)", RevenueStatistics.draws,
        timings.median, timings.worst))
  }
}
