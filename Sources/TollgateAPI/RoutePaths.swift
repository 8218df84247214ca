/// Route paths shared by the server's router, the SDK's transport and the API document.
public enum RoutePaths {
  /// Creates or returns a profile.
  public static let profiles = "/v1/sdk/profiles"
  /// A profile by id.
  public static func profile(_ id: String) -> String { "/v1/sdk/profiles/\(id)" }
  /// Apple Ads attribution token of a profile.
  public static func appleAdsAttribution(_ profileId: String) -> String {
    "/v1/sdk/profiles/\(profileId)/attribution/apple-ads"
  }
  /// StoreKit transactions of a profile.
  public static func transactions(_ profileId: String) -> String { "/v1/sdk/profiles/\(profileId)/transactions" }
  /// The segmented flow of a placement for a profile.
  public static func placementFlow(_ placementId: String) -> String {
    "/v1/sdk/placements/\(placementId)/flow"
  }
  /// The default-audience flow of a placement.
  public static func placementDefault(_ placementId: String) -> String {
    "/v1/sdk/placements/\(placementId)/default"
  }
  /// The fallback file.
  public static let fallback = "/v1/sdk/fallback"
  /// Event batches.
  public static let events = "/v1/sdk/events"
}
