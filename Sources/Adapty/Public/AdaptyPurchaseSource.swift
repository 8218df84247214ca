import Foundation

/// A product as the store describes it (StoreKit's `Product` on Apple platforms).
public struct AdaptyStoreProduct: Sendable {
  /// The product id (`vendorProductId`).
  public let id: String
  /// The localized name.
  public let displayName: String
  /// The localized description.
  public let description: String
  /// The price in `currencyCode`.
  public let price: Decimal
  /// The price formatted for the user's storefront.
  public let displayPrice: String
  /// ISO 4217.
  public let currencyCode: String?
  /// The period of an auto-renewable subscription.
  public let subscriptionPeriod: AdaptySubscriptionPeriod?
  /// The subscription's introductory offer, if it has one.
  public let introductoryDiscount: AdaptyProductDiscount?
  /// Whether this user may still take the introductory offer (one per subscription group).
  public let isEligibleForIntroductoryOffer: Bool
  /// The platform's own product (StoreKit's `Product`).
  public let platformProduct: (any Sendable)?

  /// A product (sources create them; tests create fakes).
  public init(
    id: String, displayName: String, description: String, price: Decimal, displayPrice: String,
    currencyCode: String?, subscriptionPeriod: AdaptySubscriptionPeriod? = nil,
    introductoryDiscount: AdaptyProductDiscount? = nil, isEligibleForIntroductoryOffer: Bool = false,
    platformProduct: (any Sendable)? = nil
  ) {
    self.introductoryDiscount = introductoryDiscount
    self.isEligibleForIntroductoryOffer = isEligibleForIntroductoryOffer
    self.id = id
    self.displayName = displayName
    self.description = description
    self.price = price
    self.displayPrice = displayPrice
    self.currencyCode = currencyCode
    self.subscriptionPeriod = subscriptionPeriod
    self.platformProduct = platformProduct
  }
}

/// A transaction the store signed (StoreKit 2's `Transaction` with its JWS).
public struct AdaptyStoreTransaction: Sendable, Hashable, Codable {
  /// `transactionId`.
  public let id: String
  /// `originalTransactionId`.
  public let originalId: String
  /// The product bought.
  public let productId: String
  /// Apple's JWS (`VerificationResult.jwsRepresentation`): what the server verifies.
  public let jws: String

  /// A transaction (sources create them; tests create fakes).
  public init(id: String, originalId: String, productId: String, jws: String) {
    self.id = id
    self.originalId = originalId
    self.productId = productId
    self.jws = jws
  }
}

/// How a store purchase ended.
public enum AdaptyStorePurchaseOutcome: Sendable {
  /// Paid: the transaction to hand to the server, then to finish.
  case success(AdaptyStoreTransaction)
  /// The user closed the sheet.
  case userCancelled
  /// Waiting for approval (Ask to Buy, SCA); it arrives later through `updates`.
  case pending
}

/// Talks to the App Store. On Apple platforms the SDK uses StoreKit 2; tests and the Linux
/// demo pass their own with `AdaptyConfiguration.Builder.with(purchaseSource:)`.
public protocol AdaptyPurchaseSource: Sendable {
  /// Whether this device may buy (parental controls, MDM).
  var canMakePayments: Bool { get }
  /// The products with these ids that the store knows; unknown ids are left out.
  func products(ids: [String]) async throws -> [AdaptyStoreProduct]
  /// Buys a product, tagging the transaction with `appAccountToken` (the profile id).
  func purchase(_ product: AdaptyStoreProduct, appAccountToken: UUID) async throws -> AdaptyStorePurchaseOutcome
  /// The transactions that entitle the user now (`Transaction.currentEntitlements`).
  func currentEntitlements() async throws -> [AdaptyStoreTransaction]
  /// Asks the store to sync the user's purchases (`AppStore.sync()`, may show a sign-in).
  func sync() async throws
  /// Starts delivering transactions made outside `purchase` (`Transaction.updates`: renewals,
  /// Ask to Buy approvals, purchases on other devices, refunds). Called once, at activation.
  func startUpdates(_ deliver: @escaping @Sendable (AdaptyStoreTransaction) async -> Void)
  /// Finishes a transaction once the server has it.
  func finish(transactionId: String) async
}

extension AdaptyConfiguration.Builder {
  /// Replaces the App Store purchase source (a test and demo hook; apps never need it).
  @discardableResult
  public func with(purchaseSource source: any AdaptyPurchaseSource) -> Self {
    dependencies.purchaseSource = source
    return self
  }
}
