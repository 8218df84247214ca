import Foundation
import TollgateServer

/// The revenue model's Monte Carlo step alone: `RevenueStatistics.compare` for 4 variations
/// (65 536 draws each), timed over 30 runs.
enum MonteCarlo {
  static func run() {
    let samples = (0..<4).map { index in
      RevenueSample(
        viewers: 20_000, revenues: (0..<(400 + 40 * index)).map { 5 + Double(($0 * 7 + index) % 40) })
    }
    var timings: [Double] = []
    for _ in 0..<30 {
      let clock = ContinuousClock.now
      _ = RevenueStatistics.compare(samples)
      let elapsed = clock.duration(to: .now)
      timings.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    timings.sort()
    print(
      String(
        format: "4 variations × %d draws: median %.1f ms, worst %.1f ms (30 runs)", RevenueStatistics.draws,
        timings[timings.count / 2], timings[timings.count - 1]))
  }
}
