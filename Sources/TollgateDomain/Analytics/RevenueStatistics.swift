import Foundation
import TollgateSupport

/// One variation's revenue per viewer as sufficient statistics: unique viewers, paying viewers,
/// and the payers' revenue (in the reporting currency's units) as n, Σ log x and Σ (log x)².
public struct RevenueSample: Sendable, Hashable {
  public var viewers: Int64
  public var payers: Int64
  public var sumLog: Double
  public var sumLogSquares: Double

  public init(viewers: Int64, payers: Int64, sumLog: Double, sumLogSquares: Double) {
    self.viewers = viewers
    self.payers = payers
    self.sumLog = sumLog
    self.sumLogSquares = sumLogSquares
  }

  /// From each payer's revenue (positive amounts).
  public init(viewers: Int64, revenues: [Double]) {
    self.init(
      viewers: viewers, payers: Int64(revenues.count), sumLog: revenues.reduce(0) { $0 + log($1) },
      sumLogSquares: revenues.reduce(0) { $0 + log($1) * log($1) })
  }
}

/// What the revenue model says of one variation.
public struct RevenueEstimate: Sendable, Hashable {
  /// The posterior mean of revenue per viewer (the Monte Carlo average of the draws).
  public var mean: Double
  /// Its 95 % credible interval (the draws' 2.5 % and 97.5 % quantiles).
  public var interval: (lower: Double, upper: Double)
  /// The probability that its revenue per viewer is the highest.
  public var probabilityToBeBest: Double
  /// What choosing it would cost per viewer, on average, against the best: E[max_j θ_j − θ_i].
  public var expectedLoss: Double

  public static func == (a: RevenueEstimate, b: RevenueEstimate) -> Bool {
    a.mean == b.mean && a.interval == b.interval && a.probabilityToBeBest == b.probabilityToBeBest
      && a.expectedLoss == b.expectedLoss
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(mean)
    hasher.combine(interval.lower)
    hasher.combine(interval.upper)
    hasher.combine(probabilityToBeBest)
    hasher.combine(expectedLoss)
  }
}

/// Revenue per viewer (ARPU) of an experiment's variations, compared Bayesianly. A viewer pays
/// with probability p, p ~ Beta(1 + payers, 1 + viewers − payers); what a payer pays is
/// log-normal, log x ~ N(μ, σ²), with the Normal-Inverse-Gamma posterior of (μ, σ²) from the
/// payers' n, Σ log x, Σ (log x)² (prior m₀ = 0, w₀ = 0.01, a₀ = 0, b₀ = 0: nearly flat);
/// ARPU = p · exp(μ + σ²/2). Each draw samples p, σ², μ; the estimates are averages and
/// quantiles over the draws. The draw count keeps the standard error of every probability at
/// most 0.5 / √draws ≤ 0.002; the fixed seed makes every report reproducible. Variations are
/// drawn in parallel, each from its own stream.
public enum RevenueStatistics {
  /// 65 536 draws: the standard error of a probability is at most 0.00195.
  public static let draws = 65_536
  public static let seed: UInt64 = 20_261_130
  /// Under these, the revenue decision says "not enough data": every variation needs this many
  /// unique viewers and this many paying viewers (trials do not count; with fewer payers the
  /// log-normal's variance is too uncertain for its tail to say anything).
  public static let minimumViewersPerVariation: Int64 = 100
  public static let minimumPayersPerVariation: Int64 = 10

  /// The prior of the log-normal part.
  static let priorMean = 0.0
  static let priorWeight = 0.01
  static let priorShape = 0.0
  static let priorScale = 0.0

  /// Estimates for each variation, in their order.
  public static func compare(_ samples: [RevenueSample], draws: Int = draws, seed: UInt64 = seed) -> [RevenueEstimate] {
    guard !samples.isEmpty, draws > 0 else { return [] }
    let count = samples.count
    // Variation i's draws at [i * draws ..< (i + 1) * draws], each variation drawn on its own
    // thread from its own stream (seed + i): the result does not depend on scheduling.
    var arpu = [Double](repeating: 0, count: draws * count)
    arpu.withUnsafeMutableBufferPointer { buffer in
      nonisolated(unsafe) let all = buffer
      DispatchQueue.concurrentPerform(iterations: count) { index in
        var random = SeededRandom(seed: seed &+ UInt64(index))
        let sample = samples[index]
        let viewers = Double(max(sample.viewers, 0))
        let payers = Double(min(max(sample.payers, 0), max(sample.viewers, 0)))
        guard payers > 0 else { return }
        let (shape, scale, center, weight) = logNormalPosterior(sample)
        for draw in 0..<draws {
          let p = random.beta(1 + payers, 1 + viewers - payers)
          let variance = scale / random.gamma(shape: shape)
          let mu = center + (variance / weight).squareRoot() * random.normal()
          all[index * draws + draw] = p * exp(mu + variance / 2)
        }
      }
    }
    var wins = [Int](repeating: 0, count: count)
    var loss = [Double](repeating: 0, count: count)
    var sums = [Double](repeating: 0, count: count)
    arpu.withUnsafeBufferPointer { all in
      for draw in 0..<draws {
        var best = 0
        for index in 1..<count where all[index * draws + draw] > all[best * draws + draw] { best = index }
        wins[best] += 1
        let top = all[best * draws + draw]
        for index in 0..<count {
          loss[index] += top - all[index * draws + draw]
          sums[index] += all[index * draws + draw]
        }
      }
    }
    return (0..<count).map { index in
      var column = Array(arpu[(index * draws)..<((index + 1) * draws)])
      return RevenueEstimate(
        mean: sums[index] / Double(draws),
        interval: (quantile(&column, 0.025), quantile(&column, 0.975)),
        probabilityToBeBest: Double(wins[index]) / Double(draws), expectedLoss: loss[index] / Double(draws))
    }
  }

  /// (a, b, m, w) of the Normal-Inverse-Gamma posterior: σ² ~ InvGamma(a, b), μ | σ² ~ N(m, σ²/w).
  static func logNormalPosterior(_ sample: RevenueSample) -> (Double, Double, Double, Double) {
    let n = Double(max(sample.payers, 0))
    guard n > 0 else { return (1, 1, priorMean, priorWeight) }
    let mean = sample.sumLog / n
    // Σ (log x − mean)², never below 0 through rounding.
    let spread = max(0, sample.sumLogSquares - 2 * sample.sumLog * mean + n * mean * mean)
    let shape = priorShape + n / 2
    let scale =
      priorScale + spread / 2 + n * priorWeight / (2 * (n + priorWeight)) * (mean - priorMean) * (mean - priorMean)
    let center = (n * mean + priorWeight * priorMean) / (n + priorWeight)
    // A scale of exactly 0 (every payer paid 1 unit) would make σ² 0/0: keep it a hair above.
    return (shape, max(scale, 1e-12), center, n + priorWeight)
  }

  /// The q-quantile of the draws, interpolated linearly between the order statistics around
  /// q·(n − 1) (as NumPy's default); found by selection, not a full sort. Reorders `values`.
  static func quantile(_ values: inout [Double], _ q: Double) -> Double {
    let position = q * Double(values.count - 1)
    let low = Int(position.rounded(.down))
    let lower = select(&values, low)
    guard low + 1 < values.count, position > Double(low) else { return lower }
    // After selecting `low`, everything above it is at low + 1 … : the next order statistic is their minimum.
    let upper = values[(low + 1)...].min()!
    return lower + (upper - lower) * (position - Double(low))
  }

  /// The k-th smallest value (Hoare's selection with median-of-three pivots); afterwards every
  /// value before k is ≤ it and every value after is ≥ it.
  static func select(_ values: inout [Double], _ k: Int) -> Double {
    var low = 0
    var high = values.count - 1
    while low < high {
      let middle = low + (high - low) / 2
      let pivot = Swift.max(
        Swift.min(values[low], values[middle]), Swift.min(Swift.max(values[low], values[middle]), values[high]))
      var i = low
      var j = high
      while i <= j {
        while values[i] < pivot { i += 1 }
        while values[j] > pivot { j -= 1 }
        if i <= j {
          values.swapAt(i, j)
          i += 1
          j -= 1
        }
      }
      if k <= j {
        high = j
      } else if k >= i {
        low = i
      } else {
        return values[k]
      }
    }
    return values[k]
  }
}
