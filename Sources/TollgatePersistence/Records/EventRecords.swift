import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// One recorded `flow_shown` event.
public struct EventRecord: Sendable, Hashable {
  /// Client id used to drop duplicates; nil records unconditionally.
  public var eventId: String?
  /// The profile.
  public var profileId: String
  /// The placement.
  public var placementId: String
  /// The audience the variation belongs to.
  public var audienceId: String
  /// The variation.
  public var variationId: String
  /// The flow of that variation.
  public var flowId: String
  /// When it was received.
  public var receivedAt: Date

  public init(
    eventId: String?, profileId: String, placementId: String, audienceId: String, variationId: String, flowId: String,
    receivedAt: Date
  ) {
    self.eventId = eventId
    self.profileId = profileId
    self.placementId = placementId
    self.audienceId = audienceId
    self.variationId = variationId
    self.flowId = flowId
    self.receivedAt = receivedAt
  }
}

/// A `flow_shown` event as stored.
public struct EventRow: Codable, Sendable, Hashable {
  public var placementId: String
  public var audienceId: String
  public var variationId: String
  public var flowId: String
  public var receivedAt: String

  enum CodingKeys: String, CodingKey {
    case placementId = "placement_id"
    case audienceId = "audience_id"
    case variationId = "variation_id"
    case flowId = "flow_id"
    case receivedAt = "received_at"
  }
}
