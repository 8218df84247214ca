import Adapty
import Foundation
import Synchronization
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// An App Store for tests: a product catalog, purchases that produce transactions signed the
/// way Apple signs them (by `StoreKitSigner`'s chain, which the live server trusts), a
/// transaction-updates stream, current entitlements, and a count of finishes.
public final class FakeStoreKit: AdaptyPurchaseSource {
  public enum NextPurchase: Sendable { case buy, cancel, pending, fail }

  private struct State {
    var next = NextPurchase.buy
    var nextTransactionId = 1_000
    var entitlements: [AdaptyStoreTransaction] = []
    public var finished: [String] = []
    var updates: [@Sendable (AdaptyStoreTransaction) async -> Void] = []
  }

  public let signer: StoreKitSigner
  public let bundleId: String
  public let environment: String
  public let allowsPayments: Bool
  private let state = Mutex(State())

  /// Products: id → (price, period in days; nil for non-subscriptions).
  public static let catalog: [(String, Decimal, Int?)] = [
    ("pro_monthly", 9.99, 30), ("pro_annual", 59.99, 365), ("pro_annual_intro", 29.99, 365),
    ("pro_lifetime", 149.99, nil),
  ]

  public init(
    signer: StoreKitSigner, bundleId: String = "com.example.tollgate", environment: String = "Sandbox",
    allowsPayments: Bool = true
  ) {
    self.signer = signer
    self.bundleId = bundleId
    self.environment = environment
    self.allowsPayments = allowsPayments
  }

  public var canMakePayments: Bool { allowsPayments }

  public func next(_ outcome: NextPurchase) { state.withLock { $0.next = outcome } }
  public var finished: [String] { state.withLock { $0.finished } }

  public func products(ids: [String]) async throws -> [AdaptyStoreProduct] {
    Self.catalog.filter { ids.contains($0.0) }.map { id, price, days in
      AdaptyStoreProduct(
        id: id, displayName: "Tollgate \(id)", description: "\(id) for tests", price: price,
        displayPrice: "$\(price)", currencyCode: "USD",
        subscriptionPeriod: days.map {
          $0 == 365 ? AdaptySubscriptionPeriod(unit: .year, numberOfUnits: 1) : .init(unit: .day, numberOfUnits: $0)
        })
    }
  }

  /// A transaction Apple would sign for this purchase.
  public func makeTransaction(productId: String, token: UUID?, purchased: Date = Date(), original: String? = nil) throws
    -> AdaptyStoreTransaction
  {
    let id = state.withLock { state -> String in
      defer { state.nextTransactionId += 1 }
      return String(state.nextTransactionId)
    }
    let days = Self.catalog.first { $0.0 == productId }?.2
    let milliseconds = Int64(purchased.timeIntervalSince1970 * 1000)
    var payload: [String: Any] = [
      "transactionId": id, "originalTransactionId": original ?? id, "bundleId": bundleId, "productId": productId,
      "purchaseDate": milliseconds, "originalPurchaseDate": milliseconds, "quantity": 1,
      "type": days == nil ? "Non-Consumable" : "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED",
      "environment": environment, "storefront": "USA", "transactionReason": original == nil ? "PURCHASE" : "RENEWAL",
      "price": 9_990, "currency": "USD",
    ]
    if let days { payload["expiresDate"] = milliseconds + Int64(days) * 86_400_000 }
    if let token { payload["appAccountToken"] = token.uuidString.lowercased() }
    let jws = try signer.sign(json: payload)
    return AdaptyStoreTransaction(id: id, originalId: original ?? id, productId: productId, jws: jws)
  }

  public func purchase(_ product: AdaptyStoreProduct, appAccountToken: UUID) async throws -> AdaptyStorePurchaseOutcome
  {
    switch state.withLock({ $0.next }) {
    case .cancel: return .userCancelled
    case .pending: return .pending
    case .fail: throw AdaptyError(.paymentNotAllowed, "This device may not make the payment.")
    case .buy:
      let transaction = try makeTransaction(productId: product.id, token: appAccountToken)
      state.withLock { $0.entitlements.append(transaction) }
      return .success(transaction)
    }
  }

  public func currentEntitlements() async throws -> [AdaptyStoreTransaction] { state.withLock { $0.entitlements } }

  public func setEntitlements(_ transactions: [AdaptyStoreTransaction]) {
    state.withLock { $0.entitlements = transactions }
  }

  public func sync() async throws {}

  public func startUpdates(_ deliver: @escaping @Sendable (AdaptyStoreTransaction) async -> Void) {
    state.withLock { $0.updates.append(deliver) }
  }

  /// Whether the SDK listens to the transaction updates.
  public var listensToUpdates: Bool { state.withLock { !$0.updates.isEmpty } }

  /// A transaction made elsewhere (a renewal, another device, Ask to Buy approved).
  public func deliverUpdate(_ transaction: AdaptyStoreTransaction) async {
    for deliver in state.withLock({ $0.updates }) { await deliver(transaction) }
  }

  public func finish(transactionId: String) async { state.withLock { $0.finished.append(transactionId) } }
}
