import Foundation
import TollgateSupport

/// The Beta distribution, for Bayesian conversion rates: density, distribution function
/// (the regularized incomplete beta, by its continued fraction) and quantiles (by bisection).
enum BetaDistribution {
  static func logBeta(_ a: Double, _ b: Double) -> Double { lgamma(a) + lgamma(b) - lgamma(a + b) }

  static func density(_ x: Double, _ a: Double, _ b: Double) -> Double {
    guard x > 0, x < 1 else { return 0 }
    return exp((a - 1) * log(x) + (b - 1) * log1p(-x) - logBeta(a, b))
  }

  /// P(X ≤ x) for X ~ Beta(a, b).
  static func cumulative(_ x: Double, _ a: Double, _ b: Double) -> Double {
    if x <= 0 { return 0 }
    if x >= 1 { return 1 }
    let front = exp(a * log(x) + b * log1p(-x) - logBeta(a, b))
    // The continued fraction converges fast below the mean; above it, use the symmetry.
    if x < (a + 1) / (a + b + 2) { return front * continuedFraction(x, a, b) / a }
    return 1 - front * continuedFraction(1 - x, b, a) / b
  }

  /// The continued fraction of the incomplete beta function (modified Lentz).
  private static func continuedFraction(_ x: Double, _ a: Double, _ b: Double) -> Double {
    let tiny = 1e-300
    var c = 1.0
    var d = 1 - (a + b) * x / (a + 1)
    if abs(d) < tiny { d = tiny }
    d = 1 / d
    var result = d
    for m in 1...10_000 {
      let m = Double(m)
      let even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
      d = 1 + even * d
      if abs(d) < tiny { d = tiny }
      c = 1 + even / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      result *= d * c
      let odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
      d = 1 + odd * d
      if abs(d) < tiny { d = tiny }
      c = 1 + odd / c
      if abs(c) < tiny { c = tiny }
      d = 1 / d
      let step = d * c
      result *= step
      if abs(step - 1) < 1e-15 { break }
    }
    return result
  }

  /// The x with P(X ≤ x) = p.
  static func quantile(_ p: Double, _ a: Double, _ b: Double) -> Double {
    var low = 0.0
    var high = 1.0
    for _ in 0..<200 {
      let middle = (low + high) / 2
      if cumulative(middle, a, b) < p { low = middle } else { high = middle }
      if high - low < 1e-15 { break }
    }
    return (low + high) / 2
  }
}

/// Bayesian conversion of an experiment's variations: each rate's posterior is
/// Beta(1 + purchasers, 1 + viewers − purchasers) (a uniform Beta(1, 1) prior).
public enum ConversionStatistics {
  /// Under these, the report says "not enough data": every variation needs this many unique
  /// viewers, and the experiment this many purchasers in all.
  public static let minimumViewersPerVariation: Int64 = 100
  public static let minimumPurchasers: Int64 = 10

  /// The 95 % credible interval of a conversion rate (equal tails).
  public static func credibleInterval(viewers: Int64, purchasers: Int64) -> (lower: Double, upper: Double) {
    let (a, b) = posterior(viewers: viewers, purchasers: purchasers)
    return (BetaDistribution.quantile(0.025, a, b), BetaDistribution.quantile(0.975, a, b))
  }

  /// For each variation, the probability that its conversion rate is the highest:
  /// P(best_i) = ∫ f_i(x) · Π_{j≠i} F_j(x) dx, integrated with Simpson's rule over the
  /// region holding all but 1e-9 of variation i's posterior, then normalized to sum to 1.
  public static func probabilityToBeBest(_ arms: [(viewers: Int64, purchasers: Int64)]) -> [Double] {
    let parameters = arms.map { posterior(viewers: $0.viewers, purchasers: $0.purchasers) }
    guard parameters.count > 1 else { return parameters.map { _ in 1 } }
    let steps = 4_000
    let bounds = parameters.map { a, b in
      (BetaDistribution.quantile(1e-9, a, b), BetaDistribution.quantile(1 - 1e-9, a, b))
    }
    var raw: [Double] = []
    for (index, (a, b)) in parameters.enumerated() {
      let (low, high) = bounds[index]
      let width = (high - low) / Double(steps)
      var product = (0...steps).map { BetaDistribution.density(low + Double($0) * width, a, b) }
      for (other, (c, d)) in parameters.enumerated() where other != index {
        let spread = bounds[other].1 - bounds[other].0
        let cumulative = Self.cumulativeAlong(low: low, width: width, steps: steps, c, d, smooth: spread > 200 * width)
        for step in 0...steps { product[step] *= cumulative[step] }
      }
      var sum = 0.0
      for step in 0...steps {
        let weight: Double = step == 0 || step == steps ? 1 : (step % 2 == 1 ? 4 : 2)
        sum += weight * product[step]
      }
      raw.append(sum * width / 3)
    }
    let total = raw.reduce(0, +)
    return total > 0 ? raw.map { $0 / total } : raw.map { _ in 1 / Double(raw.count) }
  }

  /// Beta(c, d)'s distribution function at `low + k · width`, k = 0…steps. The continued
  /// fraction costs hundreds of iterations a point once a variation has thousands of viewers;
  /// when the distribution is `smooth` on this grid (spread over more than 200 steps) the
  /// values are carried from one point to the next by Simpson's rule on the density and set
  /// exactly again every 250 points, which agrees with the continued fraction to about 1e-12.
  static func cumulativeAlong(low: Double, width: Double, steps: Int, _ c: Double, _ d: Double, smooth: Bool)
    -> [Double]
  {
    var values = [Double](repeating: 0, count: steps + 1)
    for step in 0...steps {
      let x = low + Double(step) * width
      guard smooth, step % 250 != 0 else {
        values[step] = BetaDistribution.cumulative(x, c, d)
        continue
      }
      let previous = x - width
      let piece =
        width / 6
        * (BetaDistribution.density(previous, c, d) + 4 * BetaDistribution.density(previous + width / 2, c, d)
          + BetaDistribution.density(x, c, d))
      values[step] = min(1, values[step - 1] + piece)
    }
    return values
  }

  static func posterior(viewers: Int64, purchasers: Int64) -> (Double, Double) {
    let converted = min(max(purchasers, 0), max(viewers, 0))
    return (1 + Double(converted), 1 + Double(max(viewers, 0) - converted))
  }
}
