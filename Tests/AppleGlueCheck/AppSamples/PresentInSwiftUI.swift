// Presenting a Paywall Builder paywall in SwiftUI: the modifier with every event, alerts and
// a placeholder; and the view embedded in a screen.
import Adapty
import AdaptyUI
import SwiftUI
import UIKit

struct PaywallAlert: Identifiable {
  let id: String
  let message: String
}

struct PaywallScreen: View {
  @State var paywallPresented = false
  @State var alertItem: PaywallAlert?
  let paywallConfiguration: AdaptyUI.PaywallConfiguration?

  var body: some View {
    Text("Hello, AdaptyUI!")
      .paywall(
        isPresented: $paywallPresented,
        fullScreen: false,
        paywallConfiguration: paywallConfiguration,
        didAppear: {},
        didDisappear: {},
        didPerformAction: { action in
          switch action {
          case .close: paywallPresented = false
          case .openURL(let url, _): UIApplication.shared.open(url)
          case .custom: break
          }
        },
        didSelectProduct: { product in print(product.vendorProductId) },
        didStartPurchase: { product in print(product.vendorProductId) },
        didFinishPurchase: { product, purchaseResult in print(purchaseResult.isPurchaseSuccess) },
        didFailPurchase: { product, error in alertItem = PaywallAlert(id: "purchase", message: "\(error)") },
        didFinishWebPaymentNavigation: { product, error in },
        didStartRestore: {},
        didFinishRestore: { profile in },
        didFailRestore: { error in },
        didFailRendering: { error in paywallPresented = false },
        didFailLoadingProducts: { error in true },
        didPartiallyLoadProducts: { failedIds in print(failedIds) },
        showAlertItem: $alertItem,
        showAlertBuilder: { item in Alert(title: Text(item.message)) },
        placeholderBuilder: { ProgressView() })
  }
}

/// The smallest call: the required closures only.
struct ShortPaywallScreen: View {
  @State var paywallPresented = false
  let paywallConfiguration: AdaptyUI.PaywallConfiguration?

  var body: some View {
    Text("Upgrade")
      .paywall(
        isPresented: $paywallPresented,
        paywallConfiguration: paywallConfiguration,
        didFailPurchase: { product, error in },
        didFinishRestore: { profile in },
        didFailRestore: { error in },
        didFailRendering: { error in })
  }
}

/// The paywall embedded in a screen of the app.
struct EmbeddedPaywall: View {
  let paywallConfiguration: AdaptyUI.PaywallConfiguration

  var body: some View {
    AdaptyPaywallView(
      paywallConfiguration: paywallConfiguration,
      didFailPurchase: { product, error in },
      didFinishRestore: { profile in },
      didFailRestore: { error in },
      didFailRendering: { error in })
  }
}

/// Embedded, with the app's alerts over it.
struct EmbeddedPaywallWithAlerts: View {
  @State var alertItem: PaywallAlert?
  let paywallConfiguration: AdaptyUI.PaywallConfiguration

  var body: some View {
    AdaptyPaywallView(
      paywallConfiguration: paywallConfiguration,
      didFailPurchase: { product, error in alertItem = PaywallAlert(id: "failed", message: "\(error)") },
      didFinishRestore: { profile in },
      didFailRestore: { error in },
      didFailRendering: { error in },
      showAlertItem: $alertItem,
      showAlertBuilder: { item in Alert(title: Text(item.message)) })
  }
}
