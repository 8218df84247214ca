/// One analytics event; today only `flow_shown`.
public struct EventPayload: Codable, Sendable, Hashable {
  /// A flow was shown: an impression of its variation.
  public static let flowShown = "flow_shown"
  /// What the first launch's Apple Ads race answered with (`source`); not an impression.
  public static let firstLaunchFlow = "first_launch_flow"

  /// Client-generated id; the server records each id once, so retries never double-count.
  public var eventId: String?
  /// The event type.
  public var type: String
  /// The profile that saw the flow.
  public var profileId: String
  /// The placement the flow came from.
  public var placementId: String
  /// The variation shown (`variation_id` of the flow response).
  public var variationId: String
  /// With `first_launch_flow`: which path answered (`segmented`, `default_audience`, `cache`,
  /// `fallback`).
  public var source: String?

  /// Creates an event.
  public init(
    eventId: String? = nil, type: String = EventPayload.flowShown, profileId: String,
    placementId: String, variationId: String, source: String? = nil
  ) {
    self.source = source
    self.eventId = eventId
    self.type = type
    self.profileId = profileId
    self.placementId = placementId
    self.variationId = variationId
  }

  enum CodingKeys: String, CodingKey {
    case type
    case eventId = "event_id"
    case profileId = "profile_id"
    case placementId = "placement_id"
    case variationId = "variation_id"
    case source
  }
}

/// `POST /v1/sdk/events`.
public struct EventBatchRequest: Codable, Sendable, Hashable {
  /// The events, at most 100.
  public var events: [EventPayload]

  /// Creates a batch.
  public init(events: [EventPayload]) { self.events = events }
}

/// The answer to an event batch.
public struct EventBatchResponse: Codable, Sendable, Hashable {
  /// Events newly recorded.
  public var accepted: Int
  /// Events whose `event_id` had been recorded before.
  public var duplicates: Int

  /// Creates a response.
  public init(accepted: Int, duplicates: Int) {
    self.accepted = accepted
    self.duplicates = duplicates
  }
}
