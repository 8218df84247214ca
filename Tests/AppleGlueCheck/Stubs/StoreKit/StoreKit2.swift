// Interface stubs of StoreKit 2's products, purchases and transactions, written from Apple's
// documentation. Nothing here runs: every body is `fatalError()`.
import Foundation

/// Mirrors https://developer.apple.com/documentation/storekit/appstore (`enum AppStore`).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum AppStore {
  /// Mirrors https://developer.apple.com/documentation/storekit/appstore/canmakepayments
  /// (`static var canMakePayments: Bool { get }`).
  public static var canMakePayments: Bool { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/appstore/sync()
  /// (`static func sync() async throws`).
  public static func sync() async throws { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/storekit/product
/// (`struct Product`: Equatable, Hashable, Identifiable, Sendable).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Product: Equatable, Hashable, Identifiable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/storekit/product/id (`let id: String`).
  public var id: String { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/product/displayname
  public var displayName: String { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/product/description
  public var description: String { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/product/price (`let price: Decimal`).
  public var price: Decimal { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/product/displayprice
  public var displayPrice: String { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/product/priceformatstyle
  /// (`let priceFormatStyle: Decimal.FormatStyle.Currency`).
  public var priceFormatStyle: Decimal.FormatStyle.Currency { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/product/subscription
  /// (`let subscription: Product.SubscriptionInfo?`).
  public var subscription: Product.SubscriptionInfo? { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/products(for:)
  /// (`static func products<Identifiers>(for identifiers: Identifiers) async throws -> [Product]
  /// where Identifiers : Collection, Identifiers.Element == String`).
  public static func products<Identifiers: Collection>(for identifiers: Identifiers) async throws -> [Product]
  where Identifiers.Element == String { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/purchase(options:)
  /// (`func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult`).
  public func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
    fatalError()
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptioninfo
  /// (`struct SubscriptionInfo`).
  public struct SubscriptionInfo: Equatable, Hashable, Sendable {
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptioninfo/subscriptionperiod
    public var subscriptionPeriod: Product.SubscriptionPeriod { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptioninfo/introductoryoffer
    /// (`let introductoryOffer: Product.SubscriptionOffer?`).
    public var introductoryOffer: Product.SubscriptionOffer? { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptioninfo/iseligibleforintrooffer
    /// (`var isEligibleForIntroOffer: Bool { get async }`).
    public var isEligibleForIntroOffer: Bool { get async { fatalError() } }
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer
  /// (`struct SubscriptionOffer`).
  public struct SubscriptionOffer: Equatable, Hashable, Sendable {
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/price
    public var price: Decimal { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/displayprice
    public var displayPrice: String { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/period
    public var period: Product.SubscriptionPeriod { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/periodcount
    public var periodCount: Int { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.property
    public var paymentMode: Product.SubscriptionOffer.PaymentMode { fatalError() }

    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct
    /// (`struct PaymentMode : Equatable, Hashable, RawRepresentable`).
    public struct PaymentMode: Equatable, Hashable, RawRepresentable, Sendable {
      public let rawValue: String
      public init(rawValue: String) { self.rawValue = rawValue }
      /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct/freetrial
      public static let freeTrial = PaymentMode(rawValue: "FreeTrial")
      /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct/payasyougo
      public static let payAsYouGo = PaymentMode(rawValue: "PayAsYouGo")
      /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionoffer/paymentmode-swift.struct/payupfront
      public static let payUpFront = PaymentMode(rawValue: "PayUpFront")
    }
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionperiod
  /// (`struct SubscriptionPeriod`).
  public struct SubscriptionPeriod: Equatable, Hashable, Sendable {
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionperiod/unit-swift.property
    public var unit: Product.SubscriptionPeriod.Unit { fatalError() }
    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionperiod/value
    public var value: Int { fatalError() }

    /// Mirrors https://developer.apple.com/documentation/storekit/product/subscriptionperiod/unit-swift.enum
    public enum Unit: Equatable, Hashable, Sendable {
      case day, week, month, year
    }
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/purchaseoption
  /// (`struct PurchaseOption : Hashable, Sendable`).
  public struct PurchaseOption: Hashable, Sendable {
    /// Mirrors https://developer.apple.com/documentation/storekit/product/purchaseoption/appaccounttoken(_:)
    /// (`static func appAccountToken(_ token: UUID) -> Product.PurchaseOption`).
    public static func appAccountToken(_ token: UUID) -> Product.PurchaseOption { fatalError() }
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/purchaseresult
  /// (`enum PurchaseResult`).
  public enum PurchaseResult: Sendable {
    case success(VerificationResult<Transaction>)
    case userCancelled
    case pending
  }

  /// Mirrors https://developer.apple.com/documentation/storekit/product/purchaseerror
  /// (`enum PurchaseError : Error`).
  public enum PurchaseError: Error, Equatable, Hashable, Sendable {
    case invalidQuantity
    case productUnavailable
    case purchaseNotAllowed
    case ineligibleForOffer
    case invalidOfferIdentifier
    case invalidOfferPrice
    case invalidOfferSignature
    case missingOfferParameters
  }
}

/// Mirrors https://developer.apple.com/documentation/storekit/storekiterror (`enum StoreKitError : Error`).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum StoreKitError: Error, Sendable {
  case unknown
  case userCancelled
  case networkError(URLError)
  case systemError(any Error)
  case notAvailableInStorefront
  case notEntitled
}

/// Mirrors https://developer.apple.com/documentation/storekit/verificationresult
/// (`enum VerificationResult<SignedType>`).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum VerificationResult<SignedType>: Sendable where SignedType: Sendable {
  case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
  case verified(SignedType)

  /// Mirrors https://developer.apple.com/documentation/storekit/verificationresult/jwsrepresentation-21vgo
  /// (`var jwsRepresentation: String { get }`).
  public var jwsRepresentation: String { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/verificationresult/unsafepayloadvalue
  /// (`var unsafePayloadValue: SignedType { get }`).
  public var unsafePayloadValue: SignedType { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
  public enum VerificationError: Error, Sendable {
    case revokedCertificate, invalidCertificateChain, invalidDeviceVerification, invalidEncoding
    case invalidSignature, missingRequiredProperties
  }
}

/// Mirrors https://developer.apple.com/documentation/storekit/transaction (`struct Transaction`).
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Transaction: Equatable, Hashable, Identifiable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/id (`let id: UInt64`).
  public var id: UInt64 { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/originalid (`let originalID: UInt64`).
  public var originalID: UInt64 { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/productid (`let productID: String`).
  public var productID: String { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/finish() (`func finish() async`).
  public func finish() async { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/updates
  /// (`static var updates: Transaction.Transactions { get }`).
  public static var updates: Transaction.Transactions { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/currententitlements
  /// (`static var currentEntitlements: Transaction.Transactions { get }`).
  public static var currentEntitlements: Transaction.Transactions { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/unfinished
  /// (`static var unfinished: Transaction.Transactions { get }`).
  public static var unfinished: Transaction.Transactions { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/all
  /// (`static var all: Transaction.Transactions { get }`).
  public static var all: Transaction.Transactions { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/storekit/transaction/transactions
  /// (`struct Transactions : AsyncSequence, Sendable`, `Element = VerificationResult<Transaction>`).
  public struct Transactions: AsyncSequence, Sendable {
    public typealias Element = VerificationResult<Transaction>
    /// Mirrors https://developer.apple.com/documentation/storekit/transaction/transactions/asynciterator
    public struct AsyncIterator: AsyncIteratorProtocol {
      public mutating func next() async -> VerificationResult<Transaction>? { fatalError() }
    }
    public func makeAsyncIterator() -> AsyncIterator { fatalError() }
  }
}
