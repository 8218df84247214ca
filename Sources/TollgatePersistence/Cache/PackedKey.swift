import Foundation
import TollgateDomain
import TollgateSupport

/// A cached profile's key: its app and its UUID as two words (24 bytes, no string to keep).
struct PackedKey: Hashable, Sendable {
  let appId: Int64
  let high: UInt64
  let low: UInt64

  /// Nil when `id` is not a UUID (such a profile is never cached).
  init?(appId: Int64, id: String) {
    guard let (high, low) = ProfileId.words(id) else { return nil }
    self.appId = appId
    self.high = high
    self.low = low
  }

  /// A well-mixed hash for the open-addressing table (UUIDs are mostly random already;
  /// sequential ids are not).
  var mixed: UInt64 {
    var value = high ^ (low &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(bitPattern: appId)
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
