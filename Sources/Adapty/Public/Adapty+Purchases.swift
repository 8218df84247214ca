import Foundation

extension Adapty {
  /// The flow's products as the App Store describes them, in the flow's order, each carrying
  /// the flow's variation so a purchase is attributed to it. Throws `noProductIDsFound`
  /// (1000) for a flow without products, `noProductsFound` (1001) when the store knows none,
  /// `productRequestFailed` (1002) when the store cannot be asked.
  public nonisolated static func getFlowProducts(flow: AdaptyFlow) async throws(AdaptyError)
    -> [AdaptyFlowProduct]
  {
    let runtime = try await Facade.shared.runtime()
    return try await runtime.purchases.products(for: flow)
  }

  /// The 3.x name of `getFlowProducts(flow:)`.
  public nonisolated static func getPaywallProducts(paywall: AdaptyFlow) async throws(AdaptyError)
    -> [AdaptyPaywallProduct]
  {
    try await getFlowProducts(flow: paywall)
  }

  /// The flow's products (4.x name of `getPaywallProducts(paywall:)`).
  public nonisolated static func getPaywallProducts(flow: AdaptyFlow) async throws(AdaptyError)
    -> [AdaptyPaywallProduct]
  {
    try await getFlowProducts(flow: flow)
  }

  /// Buys a product with the App Store, the profile id as its `appAccountToken`. The
  /// transaction goes to your server, which verifies Apple's signature; only then is it
  /// finished with StoreKit and `.success` returned with the profile whose access levels it
  /// unlocked. A send that fails is kept and retried (also on later launches) and the call
  /// throws the network's error: the purchase is not lost, the delegate gets the profile
  /// when the server has it. Throws `cantMakePayments` (1003) where purchases are not
  /// allowed, `productPurchaseFailed` (1006) when the store fails or the server refuses.
  public nonisolated static func makePurchase(product: AdaptyPaywallProduct) async throws(AdaptyError)
    -> AdaptyPurchaseResult
  {
    let runtime = try await Facade.shared.runtime()
    return try await runtime.purchases.purchase(product)
  }

  /// A transaction the app made with its own StoreKit code (observer mode): sent to your
  /// server, durably and retried like a purchase, credited to `variationId` (the flow that
  /// sold it, when one did). The app finishes it; the SDK never does in observer mode. On
  /// Apple platforms pass StoreKit's `VerificationResult<Transaction>` or `Transaction`.
  public nonisolated static func reportTransaction(
    _ transaction: AdaptyStoreTransaction, withVariationId variationId: String? = nil
  ) async throws(AdaptyError) {
    let runtime = try await Facade.shared.runtime()
    _ = try await runtime.purchases.report(transaction, variationId: variationId)
  }

  /// Restores purchases: syncs with the App Store, hands every current entitlement to the
  /// server, and returns the profile with its access levels.
  public nonisolated static func restorePurchases() async throws(AdaptyError) -> AdaptyProfile {
    let runtime = try await Facade.shared.runtime()
    return try await runtime.purchases.restore()
  }
}
