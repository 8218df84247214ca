/// Who shows App Store messages (price-increase consent, billing issues, win-back offers).
public enum AdaptyStoreMessagesHandling: Sendable, Hashable {
  /// StoreKit shows them itself, whenever they arrive (the default). The SDK captures nothing.
  case auto
  /// The SDK captures them into a pending list; the app shows them with `showStoreMessages`.
  case manual
}

/// The kind of an App Store message. Wire values: `generic`, `price_increase_consent`,
/// `billing_issue`, `win_back_offer`; a reason this SDK does not know is `storekit_<raw value>`.
public struct AdaptyStoreMessageType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
  /// The wire value.
  public let rawValue: String

  /// Wraps a wire value.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// A message for a generic reason.
  public static let generic = AdaptyStoreMessageType(rawValue: "generic")
  /// The user must agree to a subscription price increase.
  public static let priceIncreaseConsent = AdaptyStoreMessageType(rawValue: "price_increase_consent")
  /// The subscription could not be renewed: a billing problem to fix.
  public static let billingIssue = AdaptyStoreMessageType(rawValue: "billing_issue")
  /// A win-back offer for a lapsed subscriber.
  public static let winBackOffer = AdaptyStoreMessageType(rawValue: "win_back_offer")

  /// The type of a StoreKit `Message.Reason` this SDK does not know: `storekit_<raw value>`.
  public static func unknownStoreKitReason(_ rawValue: Int) -> AdaptyStoreMessageType {
    AdaptyStoreMessageType(rawValue: "storekit_\(rawValue)")
  }

  public var description: String { rawValue }
}

/// One captured App Store message.
public struct AdaptyStoreMessage: Sendable {
  /// Its type.
  public let type: AdaptyStoreMessageType
  /// Identity: the same message delivered twice is pending once.
  public let id: String
  /// The platform's message (StoreKit's `Message` on iOS).
  public let platformMessage: (any Sendable)?

  /// A message (sources create them; tests create fakes).
  public init(type: AdaptyStoreMessageType, id: String, platformMessage: (any Sendable)? = nil) {
    self.type = type
    self.id = id
    self.platformMessage = platformMessage
  }
}

/// Delivers App Store messages to the SDK. On iOS 16+ the SDK listens to StoreKit's
/// `Message.messages`; tests and the Linux demo pass their own with
/// `AdaptyConfiguration.Builder.with(storeMessageSource:)`.
public protocol AdaptyStoreMessageSource: Sendable {
  /// Starts listening; called once, synchronously during activation, so StoreKit never
  /// shows a message itself first. `deliver` may be called from any thread.
  func start(_ deliver: @escaping @Sendable (AdaptyStoreMessage) -> Void)
}

extension AdaptyConfiguration.Builder {
  /// `.manual` captures App Store messages for `showStoreMessages`; `.auto` (default) lets
  /// StoreKit show them.
  @discardableResult
  public func with(storeMessagesHandling handling: AdaptyStoreMessagesHandling) -> Self {
    storeMessagesHandling = handling
    return self
  }

  /// Replaces the App Store message source (a test and demo hook; apps never need it).
  @discardableResult
  public func with(storeMessageSource source: any AdaptyStoreMessageSource) -> Self {
    dependencies.storeMessageSource = source
    return self
  }
}
