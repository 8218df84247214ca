import Foundation
import TollgateAPI

/// What the `AdaptyUI` module (its own target, as apps import it) may use of the activated
/// SDK: the products, purchases, restores and impressions of a flow, its images, the fallback
/// file, the clock — and nothing else of the SDK's insides.
package struct AdaptyUIHost: Sendable {
  let runtime: AdaptyRuntime

  init(_ runtime: AdaptyRuntime) {
    self.runtime = runtime
  }

  /// The activated SDK; `AdaptyError.notActivated` before `Adapty.activate`.
  package static func activated() async throws(AdaptyError) -> AdaptyUIHost {
    AdaptyUIHost(try await Facade.shared.runtime())
  }

  /// The SDK's clock (a test's in tests).
  package var clock: any SDKClock { runtime.clock }

  /// Caps the image cache on disk.
  package func limitImageCache(bytes: Int) async { await runtime.assets.limitDisk(to: bytes) }

  /// The images of a document, from disk or the server within `timeout` seconds; one that
  /// cannot be had is left out.
  package func images(_ hashes: [String], timeout: Double) async -> [String: Data] {
    await runtime.assets.load(hashes, timeout: timeout)
  }

  /// The fallback file's flow for a placement, if it has one.
  package func fallbackFlow(placementId: String, locale: String?) -> AdaptyFlow? {
    runtime.fallback.flow(placementId: placementId, locale: locale)
  }

  /// The store's products of a flow, in its order.
  package func products(for flow: AdaptyFlow) async throws(AdaptyError) -> [AdaptyPaywallProduct] {
    try await runtime.purchases.products(for: flow)
  }

  /// `makePurchase`.
  package func purchase(_ product: AdaptyPaywallProduct) async throws(AdaptyError) -> AdaptyPurchaseResult {
    try await runtime.purchases.purchase(product)
  }

  /// `restorePurchases`.
  package func restore() async throws(AdaptyError) -> AdaptyProfile {
    try await runtime.purchases.restore()
  }

  /// Records that a flow was shown.
  package func logShow(_ flow: AdaptyFlow) async { await runtime.logShow(flow) }
}
