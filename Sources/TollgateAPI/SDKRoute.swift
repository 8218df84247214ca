/// One route of the SDK API: the method, the pattern the server's router matches (with
/// `{name}` segments) and the path the SDK builds from it. The server registers every SDK
/// route from `SDKRoute.all`, so client and server cannot drift apart.
public struct SDKRoute: Sendable, Hashable {
  /// `GET`, `POST`, `PATCH`.
  public let method: String
  /// The router's pattern, e.g. `/v1/sdk/profiles/{profileId}`.
  public let pattern: String

  init(_ method: String, _ pattern: String) {
    self.method = method
    self.pattern = pattern
  }

  /// The path with each `{name}` segment replaced by the next value, in order.
  public func path(_ values: String...) -> String { path(with: values) }

  /// The path with each `{name}` segment replaced by the next value, in order.
  public func path(with values: [String]) -> String {
    var remaining = values[...]
    let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
      segment.hasPrefix("{") ? (remaining.popFirst() ?? "") : String(segment)
    }
    precondition(remaining.isEmpty, "\(pattern) takes fewer values than \(values.count)")
    return segments.joined(separator: "/")
  }

  /// `POST`: creates a profile or returns the existing one.
  public static let createProfile = SDKRoute("POST", "/v1/sdk/profiles")
  /// `GET`: a profile (ETag; `wait_for=apple_ads` long poll).
  public static let profile = SDKRoute("GET", "/v1/sdk/profiles/{profileId}")
  /// `PATCH`: custom attributes, customer user id, install meta.
  public static let updateProfile = SDKRoute("PATCH", "/v1/sdk/profiles/{profileId}")
  /// `POST`: an Apple Ads attribution token.
  public static let appleAdsAttribution = SDKRoute("POST", "/v1/sdk/profiles/{profileId}/attribution/apple-ads")
  /// `POST`: a StoreKit transaction.
  public static let transactions = SDKRoute("POST", "/v1/sdk/profiles/{profileId}/transactions")
  /// `GET`: the segmented flow of a placement for a profile.
  public static let placementFlow = SDKRoute("GET", "/v1/sdk/placements/{placementId}/flow")
  /// `GET`: the default-audience flow of a placement.
  public static let placementDefault = SDKRoute("GET", "/v1/sdk/placements/{placementId}/default")
  /// `GET`: the fallback file.
  public static let fallback = SDKRoute("GET", "/v1/sdk/fallback")
  /// `POST`: a batch of events.
  public static let events = SDKRoute("POST", "/v1/sdk/events")

  /// `GET`: an image a paywall document references (public, no key; outside `/v1/sdk`, so not
  /// in `all`).
  public static let asset = SDKRoute("GET", "/v1/assets/{sha256}")

  /// Every SDK route.
  public static let all: [SDKRoute] = [
    createProfile, profile, updateProfile, appleAdsAttribution, transactions, placementFlow, placementDefault,
    fallback, events,
  ]
}

/// Paths of the SDK routes, built from `SDKRoute`'s table: for clients and tests that send
/// requests by hand.
public enum RoutePaths {
  /// Creates or returns a profile.
  public static let profiles = SDKRoute.createProfile.path()
  /// A profile by id.
  public static func profile(_ id: String) -> String { SDKRoute.profile.path(id) }
  /// Apple Ads attribution token of a profile.
  public static func appleAdsAttribution(_ profileId: String) -> String {
    SDKRoute.appleAdsAttribution.path(profileId)
  }
  /// StoreKit transactions of a profile.
  public static func transactions(_ profileId: String) -> String { SDKRoute.transactions.path(profileId) }
  /// The segmented flow of a placement for a profile.
  public static func placementFlow(_ placementId: String) -> String { SDKRoute.placementFlow.path(placementId) }
  /// The default-audience flow of a placement.
  public static func placementDefault(_ placementId: String) -> String {
    SDKRoute.placementDefault.path(placementId)
  }
  /// The fallback file.
  public static let fallback = SDKRoute.fallback.path()
  /// Event batches.
  public static let events = SDKRoute.events.path()
}
