import Foundation

/// A custom attribute value: a string (at most 50 characters) or a number.
public enum AdaptyCustomAttributeValue: Sendable, Hashable, Codable {
  /// Text.
  case string(String)
  /// A number.
  case number(Double)

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else {
      self = .string(try container.decode(String.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .number(let value): try container.encode(value)
    }
  }
}

/// The user as the server knows them. Delivered to `AdaptyDelegate.didLoadLatestProfile`
/// and `Adapty.profileUpdates` each time it changes.
public struct AdaptyProfile: Sendable, Hashable, Codable {
  /// The profile id (a UUID the SDK generated on first launch).
  public let profileId: String
  /// The app's own user id, if set with `identify` or the configuration.
  public let customerUserId: String?
  /// Custom attributes set with `updateProfile(params:)`.
  public let customAttributes: [String: AdaptyCustomAttributeValue]
  /// Attribution providers applied to this profile. Contains `.appleAds` once Apple Ads
  /// attribution is applied; permanent from then on. Attribution from other providers is
  /// not reported here.
  public let appliedExternalAttributionProviders: [AdaptyExternalAttributionProvider]
  /// Grows by one with every change on the server.
  public let version: Int64

  /// The same values as `appliedExternalAttributionProviders`, under the 3.x name.
  @available(*, deprecated, renamed: "appliedExternalAttributionProviders")
  public var appliedAttributionSources: [AdaptyExternalAttributionProvider] {
    appliedExternalAttributionProviders
  }

  /// Creates a profile (the SDK builds them from server answers).
  public init(
    profileId: String, customerUserId: String?, customAttributes: [String: AdaptyCustomAttributeValue],
    appliedExternalAttributionProviders: [AdaptyExternalAttributionProvider], version: Int64
  ) {
    self.profileId = profileId
    self.customerUserId = customerUserId
    self.customAttributes = customAttributes
    self.appliedExternalAttributionProviders = appliedExternalAttributionProviders
    self.version = version
  }
}
