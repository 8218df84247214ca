import Foundation
import TollgateAPI

/// The placement a flow was resolved for.
public struct AdaptyPlacement: Sendable, Hashable, Codable {
  /// The placement id.
  public let id: String
  /// The app's configuration revision that produced the flow.
  public let revision: Int
  /// The audience that matched (`All Users` for the default audience).
  public let audienceName: String
  /// The A/B test's name, when the flow came from one.
  public let abTestName: String?
}

/// A flow's remote config in one locale.
public struct AdaptyRemoteConfig: Sendable, Hashable, Codable {
  /// The locale of this config.
  public let locale: String
  /// The config as JSON text.
  public let jsonString: String

  /// The config parsed into a dictionary (nil when the JSON is not an object).
  public var dictionary: [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(jsonString.utf8))) as? [String: Any]
  }
}

/// A flow (paywall) for a placement: what to show, with which products.
public struct AdaptyFlow: Sendable, Hashable, Codable {
  /// Where an answer came from.
  public enum Source: String, Sendable, Hashable, Codable {
    /// The server resolved the profile's audience.
    case segmented
    /// The server's default-audience flow.
    case defaultAudience = "default_audience"
    /// The SDK's disk cache of an earlier server answer.
    case cache
    /// The fallback file set with `Adapty.setFallback(fileURL:)`.
    case fallback
  }

  /// The placement and audience.
  public let placement: AdaptyPlacement
  /// The flow id.
  public let id: String
  /// The flow's name.
  public let name: String
  /// The variation shown; `logShowFlow` reports it.
  public let variationId: String
  /// Remote config for the requested locale, if the flow has any.
  public let remoteConfig: AdaptyRemoteConfig?
  /// Vendor product ids, in order.
  public let vendorProductIds: [String]
  /// Which path answered.
  public let source: Source
  /// The flow's paywall document as the server sent it (any version: the resolution decides
  /// whether this SDK can draw it), for `AdaptyUI`.
  package var paywallDocument: JSONValue? = nil

  /// The placement id (`placement.id`).
  public var placementId: String { placement.id }

  /// Whether the flow carries a paywall designed in the console, which `AdaptyUI` draws;
  /// false: draw it yourself from `remoteConfig`.
  public var hasViewConfiguration: Bool { paywallDocument != nil }

  /// The 3.x name of `id`.
  public var instanceIdentity: String { id }

  /// The 3.x name of `placement.revision`.
  @available(*, deprecated, renamed: "placement.revision")
  public var revision: Int { placement.revision }

  /// The 3.x name of `placement.abTestName`.
  @available(*, deprecated, renamed: "placement.abTestName")
  public var abTestName: String? { placement.abTestName }

  /// The 3.x name of `placement.audienceName`.
  @available(*, deprecated, renamed: "placement.audienceName")
  public var audienceName: String { placement.audienceName }

  func with(source: Source) -> AdaptyFlow {
    AdaptyFlow(
      placement: placement, id: id, name: name, variationId: variationId, remoteConfig: remoteConfig,
      vendorProductIds: vendorProductIds, source: source, paywallDocument: paywallDocument)
  }
}

/// The 3.x name of a flow.
@available(*, deprecated, renamed: "AdaptyFlow")
public typealias AdaptyPaywall = AdaptyFlow
