#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// The closures the SwiftUI views and modifiers take, and what they do when one is left
  /// out (as Adapty's SwiftUI does): close dismisses, links open, a purchase that succeeded
  /// dismisses, a product load that failed is tried again.
  @MainActor
  struct PaywallHandlers {
    var didAppear: (() -> Void)?
    var didDisappear: (() -> Void)?
    var didPerformAction: ((AdaptyUI.Action) -> Void)?
    var didSelectProduct: ((AdaptyPaywallProduct) -> Void)?
    var didStartPurchase: ((AdaptyPaywallProduct) -> Void)?
    var didFinishPurchase: ((AdaptyPaywallProduct, AdaptyPurchaseResult) -> Void)?
    var didFailPurchase: (AdaptyPaywallProduct, AdaptyError) -> Void
    var didStartRestore: (() -> Void)?
    var didFinishRestore: (AdaptyProfile) -> Void
    var didFailRestore: (AdaptyError) -> Void
    var didFailRendering: (AdaptyUIError) -> Void
    var didFailLoadingProducts: ((AdaptyError) -> Bool)?
    var didPartiallyLoadProducts: (([String]) -> Void)?

    /// Whether a failed product load is tried again (yes unless the app says no).
    func retry(_ error: AdaptyError) -> Bool { didFailLoadingProducts?(error) ?? true }

    /// Hands an event to its closure, or does the default; `dismiss` ends the presentation.
    func handle(_ event: PaywallEvent, dismiss: () -> Void) {
      switch event {
      case .appeared: didAppear?()
      case .disappeared: didDisappear?()
      case .action(let action):
        if let didPerformAction { return didPerformAction(action) }
        switch action {
        case .close: dismiss()
        case .openURL(let url, _): UIApplication.shared.open(url)
        case .custom: break
        }
      case .selected(let product): didSelectProduct?(product)
      case .purchaseStarted(let product): didStartPurchase?(product)
      case .purchaseFinished(let product, let result):
        if let didFinishPurchase { return didFinishPurchase(product, result) }
        if !result.isPurchaseCancelled { dismiss() }
      case .purchaseFailed(let product, let error): didFailPurchase(product, error)
      case .restoreStarted: didStartRestore?()
      case .restoreFinished(let profile): didFinishRestore(profile)
      case .restoreFailed(let error): didFailRestore(error)
      case .renderingFailed(let error): didFailRendering(error)
      case .productsPartiallyLoaded(let ids): didPartiallyLoadProducts?(ids)
      }
    }
  }
#endif
