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

/// A product of the store, as the SDK describes it.
public protocol AdaptyProduct: Sendable {
  /// The store's product id.
  var vendorProductId: String { get }
  /// The localized name.
  var localizedTitle: String { get }
  /// The localized description.
  var localizedDescription: String { get }
  /// The price in `currencyCode`.
  var price: Decimal { get }
  /// The price formatted for the user's storefront.
  var localizedPrice: String? { get }
  /// ISO 4217.
  var currencyCode: String? { get }
  /// The billing period of a subscription.
  var subscriptionPeriod: AdaptySubscriptionPeriod? { get }
}

/// A product of a flow (paywall), before its offer is known: what `didSelectProduct` reports.
public protocol AdaptyPaywallProductWithoutDeterminingOffer: AdaptyProduct {
  /// The flow variation that offers it: a purchase is attributed to it.
  var variationId: String { get }
  /// The flow's name.
  var paywallName: String { get }
  /// The A/B test the flow belongs to, if any.
  var paywallABTestName: String? { get }
  /// The placement the flow was resolved for.
  var placementId: String { get }
  /// Its position among the flow's products.
  var paywallProductIndex: Int { get }
}

/// A product of a flow (paywall), ready to show and to buy with `makePurchase(product:)`. A
/// protocol, as in Adapty 3.x: apps may write `any AdaptyPaywallProduct`.
public protocol AdaptyPaywallProduct: AdaptyPaywallProductWithoutDeterminingOffer {
  /// The store's product.
  var storeProduct: AdaptyStoreProduct { get }
  /// The introductory offer, if the subscription has one.
  var introductoryDiscount: AdaptyProductDiscount? { get }
}

extension AdaptyPaywallProduct {
  /// The flow's name (4.x name).
  public var flowName: String { paywallName }
}

/// The SDK's flow product: a store product offered by one flow.
struct FlowProduct: AdaptyPaywallProduct {
  let vendorProductId: String
  let localizedTitle: String
  let localizedDescription: String
  let price: Decimal
  let localizedPrice: String?
  let currencyCode: String?
  let subscriptionPeriod: AdaptySubscriptionPeriod?
  let variationId: String
  let paywallName: String
  let paywallABTestName: String?
  let placementId: String
  let paywallProductIndex: Int
  let storeProduct: AdaptyStoreProduct

  var introductoryDiscount: AdaptyProductDiscount? { storeProduct.introductoryDiscount }

  init(_ product: AdaptyStoreProduct, flow: AdaptyFlow, index: Int) {
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
    paywallProductIndex = index
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
