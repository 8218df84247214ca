// How an app presents a paywall designed in the console, as docs/paywalls.md shows it: the
// UIKit controller with a delegate and the SwiftUI modifier.
import Adapty
import AdaptyUI
import SwiftUI
import UIKit

/// UIKit: fetch, configure, present; the delegate answers purchases.
@available(iOS 15.0, *)
final class PaywallPresenter: AdaptyPaywallControllerDelegate {
  func show(from host: UIViewController) async throws {
    let flow = try await Adapty.getFlow(placementId: "onboarding")
    let configuration = try await AdaptyUI.getPaywallConfiguration(forPaywall: flow)
    let controller = try AdaptyUI.paywallController(with: configuration, delegate: self)
    _ = (host, controller)
  }

  func paywallController(
    _ controller: AdaptyPaywallController, didFinishPurchase product: AdaptyPaywallProduct,
    purchaseResult: AdaptyPurchaseResult
  ) {
    if purchaseResult.isPurchaseSuccess { controller.dismiss(animated: true) }
  }

  func paywallController(
    _ controller: AdaptyPaywallController, didFailPurchase product: AdaptyPaywallProduct, error: AdaptyError
  ) { print(error) }

  func paywallController(_ controller: AdaptyPaywallController, didFinishRestoreWith profile: AdaptyProfile) {}

  func paywallController(_ controller: AdaptyPaywallController, didFailRestoreWith error: AdaptyError) {}

  func paywallController(_ controller: AdaptyPaywallController, didFailRenderingWith error: AdaptyUIError) {
    controller.dismiss(animated: true)
  }
}

/// SwiftUI: the modifier over any view.
@available(iOS 15.0, *)
struct OnboardingView: View {
  @State private var showsPaywall = false
  let configuration: AdaptyUI.PaywallConfiguration?

  var body: some View {
    Text("Welcome")
      .paywall(
        isPresented: $showsPaywall,
        paywallConfiguration: configuration,
        didFailPurchase: { product, error in print(product.vendorProductId, error) },
        didFinishRestore: { profile in print(profile.profileId) },
        didFailRestore: { error in print(error) },
        didFailRendering: { error in print(error) })
  }
}
