// Presenting a Paywall Builder paywall in UIKit, with a delegate that handles every event.
import Adapty
import AdaptyUI
import UIKit

final class PaywallHostViewController: UIViewController, AdaptyPaywallControllerDelegate {
  func present(_ paywallConfiguration: AdaptyUI.PaywallConfiguration) {
    do {
      let visualPaywall = try AdaptyUI.paywallController(with: paywallConfiguration, delegate: self)
      print(visualPaywall.id, visualPaywall.paywallPlacementId, visualPaywall.paywallVariationId)
      present(visualPaywall, animated: true)
    } catch {
      print(error)
    }
  }

  func paywallControllerDidAppear(_ controller: AdaptyPaywallController) {}

  func paywallControllerDidDisappear(_ controller: AdaptyPaywallController) {}

  func paywallController(_ controller: AdaptyPaywallController, didPerform action: AdaptyUI.Action) {
    switch action {
    case .close:
      controller.dismiss(animated: true)
    case let .openURL(url, presentation):
      if presentation == .externalBrowser { UIApplication.shared.open(url, options: [:]) }
    case let .custom(id):
      if id == "login" { print("log in") }
    }
  }

  func paywallController(
    _ controller: AdaptyPaywallController, didSelectProduct product: AdaptyPaywallProductWithoutDeterminingOffer
  ) {
    print(product.vendorProductId)
  }

  func paywallController(_ controller: AdaptyPaywallController, didStartPurchase product: AdaptyPaywallProduct) {}

  func paywallController(
    _ controller: AdaptyPaywallController, didFinishPurchase product: AdaptyPaywallProduct,
    purchaseResult: AdaptyPurchaseResult
  ) {
    if !purchaseResult.isPurchaseCancelled { controller.dismiss(animated: true) }
  }

  func paywallController(
    _ controller: AdaptyPaywallController, didFailPurchase product: AdaptyPaywallProduct, error: AdaptyError
  ) {}

  func paywallControllerDidStartRestore(_ controller: AdaptyPaywallController) {}

  func paywallController(_ controller: AdaptyPaywallController, didFinishRestoreWith profile: AdaptyProfile) {}

  func paywallController(_ controller: AdaptyPaywallController, didFailRestoreWith error: AdaptyError) {}

  func paywallController(_ controller: AdaptyPaywallController, didFailRenderingWith error: AdaptyUIError) {
    print(error.errorCode)
  }

  func paywallController(_ controller: AdaptyPaywallController, didFailLoadingProductsWith error: AdaptyError)
    -> Bool
  {
    true
  }

  func paywallController(_ controller: AdaptyPaywallController, didPartiallyLoadProducts failedIds: [String]) {}

  func paywallController(
    _ controller: AdaptyPaywallController, didFinishWebPaymentNavigation product: AdaptyPaywallProduct?,
    error: AdaptyError?
  ) {}
}

/// The three events a delegate must handle, and nothing else.
final class MinimalPaywallDelegate: AdaptyPaywallControllerDelegate {
  func paywallController(
    _ controller: AdaptyPaywallController, didFailPurchase product: any AdaptyPaywallProduct, error: AdaptyError
  ) {}

  func paywallController(_ controller: AdaptyPaywallController, didFinishRestoreWith profile: AdaptyProfile) {}

  func paywallController(_ controller: AdaptyPaywallController, didFailRestoreWith error: AdaptyError) {}
}
