import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// One variation's rollup counters on one UTC day.
public struct VariationDay: Codable, Sendable, Hashable {
  public var day: String
  public var audienceId: String
  public var variationId: String
  /// Profiles whose first view of the variation was this day.
  public var uniqueViewers: Int64
  public var impressions: Int64
  /// Profiles whose first credited purchase was this day.
  public var purchasers: Int64

  enum CodingKeys: String, CodingKey {
    case day, impressions, purchasers
    case audienceId = "audience_id"
    case variationId = "variation_id"
    case uniqueViewers = "unique_viewers"
  }
}
