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
  /// Access levels by id: `profile.accessLevels["premium"]?.isActive`.
  public let accessLevels: [String: AccessLevel]
  /// Auto-renewable subscriptions by product id.
  public let subscriptions: [String: Subscription]
  /// Other purchases (non-consumables, consumables, non-renewing) by product id.
  public let nonSubscriptions: [String: [NonSubscription]]

  /// The same values as `appliedExternalAttributionProviders`, under the 3.x name.
  @available(*, deprecated, renamed: "appliedExternalAttributionProviders")
  public var appliedAttributionSources: [AdaptyExternalAttributionProvider] {
    appliedExternalAttributionProviders
  }

  /// Creates a profile (the SDK builds them from server answers).
  public init(
    profileId: String, customerUserId: String?, customAttributes: [String: AdaptyCustomAttributeValue],
    appliedExternalAttributionProviders: [AdaptyExternalAttributionProvider], version: Int64,
    accessLevels: [String: AccessLevel] = [:], subscriptions: [String: Subscription] = [:],
    nonSubscriptions: [String: [NonSubscription]] = [:]
  ) {
    self.profileId = profileId
    self.customerUserId = customerUserId
    self.customAttributes = customAttributes
    self.appliedExternalAttributionProviders = appliedExternalAttributionProviders
    self.version = version
    self.accessLevels = accessLevels
    self.subscriptions = subscriptions
    self.nonSubscriptions = nonSubscriptions
  }

  enum CodingKeys: String, CodingKey {
    case profileId, customerUserId, customAttributes, appliedExternalAttributionProviders, version
    case accessLevels, subscriptions, nonSubscriptions
  }

  /// Decodes; profiles cached before purchases existed have no purchase fields.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    profileId = try container.decode(String.self, forKey: .profileId)
    customerUserId = try container.decodeIfPresent(String.self, forKey: .customerUserId)
    customAttributes = try container.decode([String: AdaptyCustomAttributeValue].self, forKey: .customAttributes)
    appliedExternalAttributionProviders = try container.decode(
      [AdaptyExternalAttributionProvider].self, forKey: .appliedExternalAttributionProviders)
    version = try container.decode(Int64.self, forKey: .version)
    accessLevels = try container.decodeIfPresent([String: AccessLevel].self, forKey: .accessLevels) ?? [:]
    subscriptions = try container.decodeIfPresent([String: Subscription].self, forKey: .subscriptions) ?? [:]
    nonSubscriptions =
      try container.decodeIfPresent([String: [NonSubscription]].self, forKey: .nonSubscriptions) ?? [:]
  }
}

extension AdaptyProfile {
  /// What a profile may use: unlocked by products as the server's configuration says.
  public struct AccessLevel: Sendable, Hashable, Codable {
    /// The level's id (`premium`).
    public let id: String
    /// Unlocked now.
    public let isActive: Bool
    /// The product that grants it.
    public let vendorProductId: String
    /// The granting transaction, and its original transaction.
    public let vendorTransactionId: String
    public let vendorOriginalTransactionId: String
    /// `app_store`.
    public let store: String
    /// When it was first activated.
    public let activatedAt: Date
    /// When it last renewed.
    public let renewedAt: Date?
    /// When it ends unless renewed; nil for lifetime access.
    public let expiresAt: Date?
    /// Never expires (a non-consumable).
    public let isLifetime: Bool
    /// Auto-renew is on.
    public let willRenew: Bool
    /// Renewal failed but Apple's grace period keeps access.
    public let isInGracePeriod: Bool
    /// When auto-renew was turned off.
    public let unsubscribedAt: Date?
    /// When a billing problem was detected.
    public let billingIssueDetectedAt: Date?
    /// Refunded.
    public let isRefund: Bool
    /// `free_trial`, `pay_as_you_go` or `pay_up_front` while an introductory offer runs.
    public let activeIntroductoryOfferType: String?
  }

  /// An auto-renewable subscription.
  public struct Subscription: Sendable, Hashable, Codable {
    public let vendorProductId: String
    public let vendorTransactionId: String
    public let vendorOriginalTransactionId: String
    public let store: String
    /// `active`, `grace_period`, `billing_retry`, `expired` or `revoked`.
    public let state: String
    /// Unlocks access now.
    public let isActive: Bool
    public let activatedAt: Date
    public let renewedAt: Date?
    public let expiresAt: Date?
    public let willRenew: Bool
    public let isInGracePeriod: Bool
    public let unsubscribedAt: Date?
    public let billingIssueDetectedAt: Date?
    public let isRefund: Bool
    /// Why it ended: `voluntary`, `billing_error`, `price_increase`, `product_unavailable`,
    /// `refund`, `other`.
    public let expirationReason: String?
    public let isSandbox: Bool
    public let isFamilyShared: Bool
    /// The current period is a free trial.
    public let isTrial: Bool
    /// `free_trial`, `pay_as_you_go` or `pay_up_front` while an introductory offer runs.
    public let activeIntroductoryOfferType: String?
    /// Subscriptions are never lifetime (kept for code written against the vendor's API).
    public var isLifetime: Bool { false }
  }

  /// A purchase that is not an auto-renewable subscription.
  public struct NonSubscription: Sendable, Hashable, Codable {
    public let vendorProductId: String
    public let vendorTransactionId: String
    public let store: String
    public let purchasedAt: Date
    /// Consumables unlock nothing; each purchase is separate.
    public let isConsumable: Bool
    /// Bought once (non-consumable).
    public var isOneTime: Bool { !isConsumable }
    public let isRefund: Bool
    public let isSandbox: Bool
  }
}
