#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// Answers what happens on a paywall presented with `AdaptyPaywallController`. Every method
  /// has a default: close dismisses, links open in the browser, the rest do nothing.
  @available(iOS 15.0, *)
  @MainActor
  public protocol AdaptyPaywallControllerDelegate: AnyObject {
    /// The paywall is on screen (its impression is recorded).
    func paywallControllerDidAppear(_ controller: AdaptyPaywallController)
    /// The paywall left the screen.
    func paywallControllerDidDisappear(_ controller: AdaptyPaywallController)
    /// The close button or a link.
    func paywallController(_ controller: AdaptyPaywallController, didPerform action: AdaptyUI.Action)
    /// The user picked a product.
    func paywallController(_ controller: AdaptyPaywallController, didSelectProduct product: AdaptyPaywallProduct)
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
  }

  @available(iOS 15.0, *)
  extension AdaptyPaywallControllerDelegate {
    public func paywallControllerDidAppear(_ controller: AdaptyPaywallController) {}
    public func paywallControllerDidDisappear(_ controller: AdaptyPaywallController) {}
    public func paywallController(_ controller: AdaptyPaywallController, didPerform action: AdaptyUI.Action) {
      switch action {
      case .close: controller.dismiss(animated: true)
      case .openURL(let url, _): UIApplication.shared.open(url)
      case .custom: break
      }
    }
    public func paywallController(_ controller: AdaptyPaywallController, didSelectProduct product: AdaptyPaywallProduct)
    {}
    public func paywallController(_ controller: AdaptyPaywallController, didStartPurchase product: AdaptyPaywallProduct)
    {}
    public func paywallController(
      _ controller: AdaptyPaywallController, didFinishPurchase product: AdaptyPaywallProduct,
      purchaseResult: AdaptyPurchaseResult
    ) {
      if !purchaseResult.isPurchaseCancelled { controller.dismiss(animated: true) }
    }
    public func paywallController(
      _ controller: AdaptyPaywallController, didFailPurchase product: AdaptyPaywallProduct, error: AdaptyError
    ) {}
    public func paywallControllerDidStartRestore(_ controller: AdaptyPaywallController) {}
    public func paywallController(_ controller: AdaptyPaywallController, didFinishRestoreWith profile: AdaptyProfile) {}
    public func paywallController(_ controller: AdaptyPaywallController, didFailRestoreWith error: AdaptyError) {}
    public func paywallController(_ controller: AdaptyPaywallController, didFailRenderingWith error: AdaptyUIError) {}
  }

  /// A paywall designed in the console, as a UIKit view controller to present.
  @available(iOS 15.0, *)
  public final class AdaptyPaywallController: UIHostingController<AdaptyPaywallView> {
    /// The configuration it draws.
    public let paywallConfiguration: AdaptyUI.PaywallConfiguration
    /// Receives what happens on the paywall.
    public weak var delegate: (any AdaptyPaywallControllerDelegate)?

    init(paywallConfiguration: AdaptyUI.PaywallConfiguration, delegate: any AdaptyPaywallControllerDelegate) {
      self.paywallConfiguration = paywallConfiguration
      self.delegate = delegate
      let session = PaywallSession(configuration: paywallConfiguration) { _ in }
      super.init(rootView: AdaptyPaywallView(session: session))
      session.report = { [weak self] event in self?.deliver(event) }
    }

    @available(*, unavailable)
    required init?(coder aDecoder: NSCoder) { nil }

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
      }
    }
  }

  @available(iOS 15.0, *)
  extension AdaptyUI {
    /// The view controller of a paywall configuration; present it modally.
    @MainActor
    public static func paywallController(
      with paywallConfiguration: PaywallConfiguration, delegate: any AdaptyPaywallControllerDelegate,
      showDebugOverlay: Bool = false
    ) throws -> AdaptyPaywallController {
      guard activation.withLock({ $0 }) else { throw AdaptyUIError.adaptyUINotActivated }
      return AdaptyPaywallController(paywallConfiguration: paywallConfiguration, delegate: delegate)
    }

    /// The 4.x name of `paywallController(with:delegate:showDebugOverlay:)`.
    @MainActor
    public static func flowController(
      with flowConfiguration: FlowConfiguration, delegate: any AdaptyPaywallControllerDelegate
    ) throws -> AdaptyPaywallController {
      try paywallController(with: flowConfiguration, delegate: delegate)
    }
  }
#endif
