#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// Answers what happens on a paywall presented with `AdaptyPaywallController` (Adapty
  /// 3.x). A purchase's and a restore's outcome must be handled; everything else has a
  /// default: close dismisses, links open, a purchase that succeeded dismisses, a product load
  /// that failed is not retried.
  @available(iOS 15.0, *)
  @MainActor
  public protocol AdaptyPaywallControllerDelegate: AnyObject {
    /// The paywall is on screen (its impression is recorded).
    func paywallControllerDidAppear(_ controller: AdaptyPaywallController)
    /// The paywall left the screen.
    func paywallControllerDidDisappear(_ controller: AdaptyPaywallController)
    /// The close button, a link, or a button with an action of the app's own.
    func paywallController(_ controller: AdaptyPaywallController, didPerform action: AdaptyUI.Action)
    /// The user picked a product.
    func paywallController(
      _ controller: AdaptyPaywallController, didSelectProduct product: AdaptyPaywallProductWithoutDeterminingOffer)
    /// The purchase button: `makePurchase` starts.
    func paywallController(_ controller: AdaptyPaywallController, didStartPurchase product: AdaptyPaywallProduct)
    /// `makePurchase` answered (`.userCancelled` when the user closed the App Store sheet).
    func paywallController(
      _ controller: AdaptyPaywallController, didFinishPurchase product: AdaptyPaywallProduct,
      purchaseResult: AdaptyPurchaseResult)
    /// `makePurchase` threw.
    func paywallController(
      _ controller: AdaptyPaywallController, didFailPurchase product: AdaptyPaywallProduct, error: AdaptyError)
    /// The restore button: `restorePurchases` starts.
    func paywallControllerDidStartRestore(_ controller: AdaptyPaywallController)
    /// `restorePurchases` answered.
    func paywallController(_ controller: AdaptyPaywallController, didFinishRestoreWith profile: AdaptyProfile)
    /// `restorePurchases` threw.
    func paywallController(_ controller: AdaptyPaywallController, didFailRestoreWith error: AdaptyError)
    /// The document could not be drawn.
    func paywallController(_ controller: AdaptyPaywallController, didFailRenderingWith error: AdaptyUIError)
    /// The products could not be loaded; true loads them again (after 2 s).
    func paywallController(_ controller: AdaptyPaywallController, didFailLoadingProductsWith error: AdaptyError)
      -> Bool
    /// Some of the flow's products are unknown to the store.
    func paywallController(_ controller: AdaptyPaywallController, didPartiallyLoadProducts failedIds: [String])
    /// A web payment ended. Tollgate's paywalls have no web payments: never called.
    func paywallController(
      _ controller: AdaptyPaywallController, didFinishWebPaymentNavigation product: AdaptyPaywallProduct?,
      error: AdaptyError?)
  }

  @available(iOS 15.0, *)
  extension AdaptyPaywallControllerDelegate {
    public func paywallControllerDidAppear(_ controller: AdaptyPaywallController) {}
    public func paywallControllerDidDisappear(_ controller: AdaptyPaywallController) {}
    public func paywallController(_ controller: AdaptyPaywallController, didPerform action: AdaptyUI.Action) {
      PaywallPresentation.perform(action, from: controller)
    }
    public func paywallController(
      _ controller: AdaptyPaywallController, didSelectProduct product: AdaptyPaywallProductWithoutDeterminingOffer
    ) {}
    public func paywallController(_ controller: AdaptyPaywallController, didStartPurchase product: AdaptyPaywallProduct)
    {}
    public func paywallController(
      _ controller: AdaptyPaywallController, didFinishPurchase product: AdaptyPaywallProduct,
      purchaseResult: AdaptyPurchaseResult
    ) {
      if !purchaseResult.isPurchaseCancelled { controller.dismiss(animated: true) }
    }
    public func paywallControllerDidStartRestore(_ controller: AdaptyPaywallController) {}
    public func paywallController(_ controller: AdaptyPaywallController, didFailRenderingWith error: AdaptyUIError) {}
    public func paywallController(
      _ controller: AdaptyPaywallController, didFailLoadingProductsWith error: AdaptyError
    ) -> Bool { false }
    public func paywallController(_ controller: AdaptyPaywallController, didPartiallyLoadProducts failedIds: [String]) {
    }
    public func paywallController(
      _ controller: AdaptyPaywallController, didFinishWebPaymentNavigation product: AdaptyPaywallProduct?,
      error: AdaptyError?
    ) {}
  }

  /// A paywall designed in the console, as a UIKit view controller to present (full screen).
  @available(iOS 15.0, *)
  public final class AdaptyPaywallController: UIViewController {
    /// This presentation's id (a new one per controller).
    public let id = UUID().uuidString
    /// Receives what happens on the paywall.
    public weak var delegate: (any AdaptyPaywallControllerDelegate)?
    /// The configuration it draws.
    public let paywallConfiguration: AdaptyUI.PaywallConfiguration
    /// The placement of the flow it draws.
    public var paywallPlacementId: String { paywallConfiguration.flow.placement.id }
    /// The variation of the flow it draws.
    public var paywallVariationId: String { paywallConfiguration.flow.variationId }
    private let presentation: PaywallPresentation

    init(paywallConfiguration: AdaptyUI.PaywallConfiguration, delegate: any AdaptyPaywallControllerDelegate) {
      self.paywallConfiguration = paywallConfiguration
      self.delegate = delegate
      presentation = PaywallPresentation(configuration: paywallConfiguration)
      super.init(nibName: nil, bundle: nil)
      modalPresentationStyle = .fullScreen
      presentation.session.retryLoadingProducts = { [weak self] error in
        guard let self else { return false }
        // Without a delegate nobody can be asked: try again, as Adapty does.
        return self.delegate?.paywallController(self, didFailLoadingProductsWith: error) ?? true
      }
      presentation.session.report = { [weak self] event in self?.deliver(event) }
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { nil }

    /// Light status bar text, as Adapty's controller.
    public override var preferredStatusBarStyle: UIStatusBarStyle { .lightContent }

    public override func loadView() { view = presentation.embed(in: self) }

    private func deliver(_ event: PaywallEvent) {
      guard let delegate else { return }
      switch event {
      case .appeared: delegate.paywallControllerDidAppear(self)
      case .disappeared: delegate.paywallControllerDidDisappear(self)
      case .action(let action): delegate.paywallController(self, didPerform: action)
      case .selected(let product): delegate.paywallController(self, didSelectProduct: product)
      case .purchaseStarted(let product): delegate.paywallController(self, didStartPurchase: product)
      case .purchaseFinished(let product, let result):
        delegate.paywallController(self, didFinishPurchase: product, purchaseResult: result)
      case .purchaseFailed(let product, let error):
        delegate.paywallController(self, didFailPurchase: product, error: error)
      case .restoreStarted: delegate.paywallControllerDidStartRestore(self)
      case .restoreFinished(let profile): delegate.paywallController(self, didFinishRestoreWith: profile)
      case .restoreFailed(let error): delegate.paywallController(self, didFailRestoreWith: error)
      case .renderingFailed(let error): delegate.paywallController(self, didFailRenderingWith: error)
      case .productsPartiallyLoaded(let ids): delegate.paywallController(self, didPartiallyLoadProducts: ids)
      }
    }
  }

  @available(iOS 15.0, *)
  extension AdaptyUI {
    /// The view controller of a paywall configuration; present it (full screen by default).
    @MainActor
    public static func paywallController(
      with paywallConfiguration: PaywallConfiguration, delegate: any AdaptyPaywallControllerDelegate,
      showDebugOverlay: Bool = false
    ) throws -> AdaptyPaywallController {
      guard activation.withLock({ $0 }) else { throw AdaptyUIError.adaptyUINotActivated }
      return AdaptyPaywallController(paywallConfiguration: paywallConfiguration, delegate: delegate)
    }
  }
#endif
