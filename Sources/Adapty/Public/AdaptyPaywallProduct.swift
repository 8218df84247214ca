import Foundation

/// A unit of a subscription period.
public enum AdaptyPeriodUnit: String, Sendable, Hashable, Codable {
  case day, week, month, year, unknown
}

/// A subscription's billing period, e.g. 1 month.
public struct AdaptySubscriptionPeriod: Sendable, Hashable, Codable {
  /// The unit.
  public let unit: AdaptyPeriodUnit
  /// How many units.
  public let numberOfUnits: Int

  /// A period.
  public init(unit: AdaptyPeriodUnit, numberOfUnits: Int) {
    self.unit = unit
    self.numberOfUnits = numberOfUnits
  }
}

/// A subscription's introductory offer as the store describes it.
public struct AdaptyProductDiscount: Sendable, Hashable {
  /// How the offer is paid.
  public enum PaymentMode: String, Sendable, Hashable {
    case freeTrial = "free_trial"
    case payAsYouGo = "pay_as_you_go"
    case payUpFront = "pay_up_front"
  }

  /// How the offer is paid.
  public let paymentMode: PaymentMode
  /// The price of one period of the offer (0 for a free trial).
  public let price: Decimal
  /// The price formatted for the user's storefront.
  public let localizedPrice: String?
  /// One period of the offer.
  public let subscriptionPeriod: AdaptySubscriptionPeriod
  /// How many periods the offer lasts.
  public let numberOfPeriods: Int

  /// An offer (sources create them; tests create fakes).
  public init(
    paymentMode: PaymentMode, price: Decimal, localizedPrice: String?, subscriptionPeriod: AdaptySubscriptionPeriod,
    numberOfPeriods: Int
  ) {
    self.paymentMode = paymentMode
    self.price = price
    self.localizedPrice = localizedPrice
    self.subscriptionPeriod = subscriptionPeriod
    self.numberOfPeriods = numberOfPeriods
  }
}

/// A product of a flow (paywall), ready to show and to buy with `makePurchase(product:)`.
public struct AdaptyPaywallProduct: Sendable {
  /// The store's product id.
  public let vendorProductId: String
  /// The localized name.
  public let localizedTitle: String
  /// The localized description.
  public let localizedDescription: String
  /// The price in `currencyCode`.
  public let price: Decimal
  /// The price formatted for the user's storefront.
  public let localizedPrice: String?
  /// ISO 4217.
  public let currencyCode: String?
  /// The billing period of a subscription.
  public let subscriptionPeriod: AdaptySubscriptionPeriod?
  /// The flow variation that offers it: a purchase is attributed to it.
  public let variationId: String
  /// The flow's name.
  public let paywallName: String
  /// The A/B test the flow belongs to, if any.
  public let paywallABTestName: String?
  /// The placement the flow was resolved for.
  public let placementId: String
  /// The store's product.
  public let storeProduct: AdaptyStoreProduct

  /// The flow's name (4.x name).
  public var flowName: String { paywallName }
  /// The introductory offer, if the subscription has one.
  public var introductoryDiscount: AdaptyProductDiscount? { storeProduct.introductoryDiscount }

  init(_ product: AdaptyStoreProduct, flow: AdaptyFlow) {
    vendorProductId = product.id
    localizedTitle = product.displayName
    localizedDescription = product.description
    price = product.price
    localizedPrice = product.displayPrice
    currencyCode = product.currencyCode
    subscriptionPeriod = product.subscriptionPeriod
    variationId = flow.variationId
    paywallName = flow.name
    paywallABTestName = flow.placement.abTestName
    placementId = flow.placement.id
    storeProduct = product
  }
}

/// The 4.x name of a flow's product.
public typealias AdaptyFlowProduct = AdaptyPaywallProduct

/// A purchase the server has: the store's transaction.
public struct AdaptyPurchasedTransaction: Sendable, Hashable {
  /// The store transaction (on Apple platforms, `sk2Transaction` gives StoreKit's).
  public let storeTransaction: AdaptyStoreTransaction
  /// `transactionId`.
  public var transactionId: String { storeTransaction.id }
  /// `originalTransactionId`.
  public var originalTransactionId: String { storeTransaction.originalId }
  /// The product bought.
  public var vendorProductId: String { storeTransaction.productId }
}

/// How `makePurchase` ended.
public enum AdaptyPurchaseResult: Sendable {
  /// The user closed the purchase sheet.
  case userCancelled
  /// Waiting for approval (Ask to Buy, SCA); the profile updates through the delegate when
  /// it is approved.
  case pending
  /// Bought, and the server has it: the profile shows the access it unlocks.
  case success(profile: AdaptyProfile, transaction: AdaptyPurchasedTransaction)

  /// Whether the user cancelled.
  public var isPurchaseCancelled: Bool {
    if case .userCancelled = self { return true }
    return false
  }

  /// Whether the purchase waits for approval.
  public var isPurchasePending: Bool {
    if case .pending = self { return true }
    return false
  }

  /// Whether it succeeded.
  public var isPurchaseSuccess: Bool {
    if case .success = self { return true }
    return false
  }

  /// The profile after a successful purchase.
  public var profile: AdaptyProfile? {
    if case .success(let profile, _) = self { return profile }
    return nil
  }
}
