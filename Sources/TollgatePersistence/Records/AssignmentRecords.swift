import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Identifies one experiment slot of one profile: the assignment key.
public struct AssignmentKey: Sendable, Hashable {
  /// The app.
  public var appId: Int64
  /// The profile.
  public var profileId: String
  /// The placement.
  public var placementId: String
  /// The audience whose experiment it is.
  public var audienceId: String

  /// Every stored field.
  package init(appId: Int64, profileId: String, placementId: String, audienceId: String) {
    self.appId = appId
    self.profileId = profileId
    self.placementId = placementId
    self.audienceId = audienceId
  }
}

/// A profile's stored assignment to a variation.
public struct AssignmentRow: Codable, Sendable, Hashable {
  public var placementId: String
  public var audienceId: String
  public var variationId: String
  public var assignedAt: String

  enum CodingKeys: String, CodingKey {
    case placementId = "placement_id"
    case audienceId = "audience_id"
    case variationId = "variation_id"
    case assignedAt = "assigned_at"
  }
}
