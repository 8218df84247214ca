/// A seeded random number generator (a 64-bit LCG), so a randomized test that fails can be
/// replayed with the same sequence.
struct Seeded: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }
}
