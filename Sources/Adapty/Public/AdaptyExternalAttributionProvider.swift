/// An attribution provider that can be applied to a profile. String-backed and open:
/// a value the SDK does not know (a newer server) is kept as is, never an error.
///
/// Wire mapping: `.appleAds` is `apple_ads`, the value the Tollgate server puts in a
/// profile's `applied_attribution_sources` once Apple Ads attribution is applied.
public struct AdaptyExternalAttributionProvider: RawRepresentable, Sendable, Hashable, Codable,
  CustomStringConvertible
{
  /// The wire value.
  public let rawValue: String

  /// Wraps a wire value.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Apple Ads (AdServices) attribution.
  public static let appleAds = AdaptyExternalAttributionProvider(rawValue: "apple_ads")

  public var description: String { rawValue }
}

/// The 3.x name of the attribution provider type.
public typealias AdaptyAttributionSource = AdaptyExternalAttributionProvider
