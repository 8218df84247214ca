import Foundation
import TollgateSupport

/// Deterministic variation choice: the same (placement, audience, profile) always lands in
/// the same of 10 000 buckets, on every server and across restarts.
public enum Bucketing {
  /// Number of buckets; weights are whole percentages, 100 buckets each.
  public static let bucketCount = 10_000

  /// The bucket, in `0..<10_000`: the first 8 bytes of SHA-256 of
  /// `placement + "\n" + audience + "\n" + profile id`, big-endian, modulo 10 000.
  public static func bucket(placementId: String, audienceId: String, profileId: String) -> Int {
    let digest = Digest.sha256(Data("\(placementId)\n\(audienceId)\n\(profileId)".utf8))
    let prefix = digest.prefix(8).reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
    return Int(prefix % UInt64(bucketCount))
  }

  /// The index of the variation that owns `bucket` when the weights (percentages summing
  /// to 100) are laid out in order over the buckets.
  public static func variationIndex(bucket: Int, weights: [Int]) -> Int {
    var upper = 0
    for (index, weight) in weights.enumerated() {
      upper += weight * (bucketCount / 100)
      if bucket < upper { return index }
    }
    return max(0, weights.count - 1)
  }
}
