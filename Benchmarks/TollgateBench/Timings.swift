import Foundation

/// Milliseconds of repeated runs of one piece of work, sorted.
struct Timings {
  let sorted: [Double]

  /// Runs `work` `runs` times and keeps each run's wall time.
  init(runs: Int, _ work: () throws -> Void) rethrows {
    var timings: [Double] = []
    for _ in 0..<runs {
      let clock = ContinuousClock.now
      try work()
      let elapsed = clock.duration(to: .now)
      timings.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    sorted = timings.sorted()
  }

  var median: Double { sorted[sorted.count / 2] }
  var p99: Double { sorted[sorted.count * 99 / 100] }
  var worst: Double { sorted[sorted.count - 1] }
}
