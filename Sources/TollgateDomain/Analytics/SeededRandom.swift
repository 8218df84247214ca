import Foundation
import TollgateSupport

/// A seeded pseudo-random source (xoshiro256**, seeded through SplitMix64) with the draws the
/// revenue model needs: the same seed gives the same report on every machine and run.
/// Statistical, not cryptographic.
struct SeededRandom {
  private var state: (UInt64, UInt64, UInt64, UInt64)
  /// The second normal of the last Marsaglia polar pair.
  private var spareNormal: Double?

  init(seed: UInt64) {
    var mix = seed
    func next() -> UInt64 {
      mix &+= 0x9E37_79B9_7F4A_7C15
      var z = mix
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    state = (next(), next(), next(), next())
  }

  mutating func nextBits() -> UInt64 {
    let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
    let shifted = state.1 << 17
    state.2 ^= state.0
    state.3 ^= state.1
    state.1 ^= state.2
    state.0 ^= state.3
    state.2 ^= shifted
    state.3 = state.3 << 45 | state.3 >> 19
    return result
  }

  /// Uniform in (0, 1): never 0, so its logarithm is finite.
  mutating func uniform() -> Double { (Double(nextBits() >> 11) + 0.5) / 9_007_199_254_740_992 }

  /// Standard normal (Marsaglia's polar method; the pair's second value is kept for the next call).
  mutating func normal() -> Double {
    if let spare = spareNormal {
      spareNormal = nil
      return spare
    }
    while true {
      let u = 2 * uniform() - 1
      let v = 2 * uniform() - 1
      let s = u * u + v * v
      guard s < 1, s > 0 else { continue }
      let factor = (-2 * log(s) / s).squareRoot()
      spareNormal = v * factor
      return u * factor
    }
  }

  /// Gamma(shape, 1) (Marsaglia and Tsang; shapes below 1 through Gamma(shape + 1) · U^(1/shape)).
  mutating func gamma(shape: Double) -> Double {
    if shape < 1 {
      return gamma(shape: shape + 1) * pow(uniform(), 1 / shape)
    }
    let d = shape - 1.0 / 3
    let c = 1 / (9 * d).squareRoot()
    while true {
      var x: Double
      var v: Double
      repeat {
        x = normal()
        v = 1 + c * x
      } while v <= 0
      v = v * v * v
      let u = uniform()
      if u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)) { return d * v }
    }
  }

  /// Beta(a, b), as X / (X + Y) of two gammas.
  mutating func beta(_ a: Double, _ b: Double) -> Double {
    let x = gamma(shape: a)
    let y = gamma(shape: b)
    return x / (x + y)
  }
}
