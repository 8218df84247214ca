// Observer mode: the app makes purchases with its own code; AdaptyUI draws the paywall.
import Adapty
import AdaptyUI
import Foundation

final class MyObserverModeResolver: AdaptyObserverModeResolver {
  func observerMode(
    didInitiatePurchase product: AdaptyPaywallProduct,
    onStartPurchase: @MainActor @Sendable @escaping () -> Void,
    onFinishPurchase: @MainActor @Sendable @escaping () -> Void
  ) {
    Task { @MainActor in
      onStartPurchase()
      print("buy \(product.vendorProductId) for variation \(product.variationId)")
      onFinishPurchase()
    }
  }

  func observerModeDidInitiateRestorePurchases(
    onStartRestore: @MainActor @Sendable @escaping () -> Void,
    onFinishRestore: @MainActor @Sendable @escaping () -> Void
  ) {
    Task { @MainActor in
      onStartRestore()
      onFinishRestore()
    }
  }
}

@MainActor
func observedPaywall(_ paywall: AdaptyPaywall) async throws -> AdaptyUI.PaywallConfiguration {
  try await AdaptyUI.getPaywallConfiguration(forPaywall: paywall, observerModeResolver: MyObserverModeResolver())
}
