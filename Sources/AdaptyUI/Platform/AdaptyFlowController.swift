#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// Answers what happens on a flow presented with `AdaptyFlowController` (Adapty 4.x's
  /// names for `AdaptyPaywallControllerDelegate`; `didReceiveError` was
  /// `didFailRenderingWith`). The same three outcomes must be handled; the rest have defaults.
  @MainActor
  public protocol AdaptyFlowControllerDelegate: AnyObject {
    /// The flow is on screen (its impression is recorded).
    func flowControllerDidAppear(_ controller: AdaptyFlowController)
    /// The flow left the screen.
    func flowControllerDidDisappear(_ controller: AdaptyFlowController)
    /// The close button, a link, or a button with an action of the app's own.
    func flowController(_ controller: AdaptyFlowController, didPerform action: AdaptyUI.Action)
    /// The user picked a product.
    func flowController(_ controller: AdaptyFlowController, didSelectProduct product: AdaptyPaywallProduct)
    /// The purchase button: `makePurchase` starts.
    func flowController(_ controller: AdaptyFlowController, didStartPurchase product: AdaptyPaywallProduct)
    /// `makePurchase` answered.
    func flowController(
      _ controller: AdaptyFlowController, didFinishPurchase product: AdaptyPaywallProduct,
      purchaseResult: AdaptyPurchaseResult)
    /// `makePurchase` threw.
    func flowController(
      _ controller: AdaptyFlowController, didFailPurchase product: AdaptyPaywallProduct, error: AdaptyError)
    /// The restore button: `restorePurchases` starts.
    func flowControllerDidStartRestore(_ controller: AdaptyFlowController)
    /// `restorePurchases` answered.
    func flowController(_ controller: AdaptyFlowController, didFinishRestoreWith profile: AdaptyProfile)
    /// `restorePurchases` threw.
    func flowController(_ controller: AdaptyFlowController, didFailRestoreWith error: AdaptyError)
    /// The document could not be drawn.
    func flowController(_ controller: AdaptyFlowController, didReceiveError error: AdaptyUIError)
    /// The products could not be loaded; true loads them again (after 2 s).
    func flowController(_ controller: AdaptyFlowController, didFailLoadingProductsWith error: AdaptyError) -> Bool
    /// Some of the flow's products are unknown to the store.
    func flowController(_ controller: AdaptyFlowController, didPartiallyLoadProducts failedIds: [String])
    /// A web payment ended. Tollgate's paywalls have no web payments: never called.
    func flowController(
      _ controller: AdaptyFlowController, didFinishWebPaymentNavigation product: AdaptyPaywallProduct?,
      error: AdaptyError?)
    /// An analytics event of the flow's script. Tollgate's flows run no script: never called.
    func flowController(
      _ controller: AdaptyFlowController, didReceiveAnalyticEvent name: String, params: [String: any Sendable])
  }

  extension AdaptyFlowControllerDelegate {
    public func flowControllerDidAppear(_ controller: AdaptyFlowController) {}
    public func flowControllerDidDisappear(_ controller: AdaptyFlowController) {}
    public func flowController(_ controller: AdaptyFlowController, didPerform action: AdaptyUI.Action) {
      PaywallPresentation.perform(action, from: controller)
    }
    public func flowController(_ controller: AdaptyFlowController, didSelectProduct product: AdaptyPaywallProduct) {}
    public func flowController(_ controller: AdaptyFlowController, didStartPurchase product: AdaptyPaywallProduct) {}
    public func flowController(
      _ controller: AdaptyFlowController, didFinishPurchase product: AdaptyPaywallProduct,
      purchaseResult: AdaptyPurchaseResult
    ) {
      if !purchaseResult.isPurchaseCancelled { controller.dismiss(animated: true) }
    }
    public func flowControllerDidStartRestore(_ controller: AdaptyFlowController) {}
    public func flowController(_ controller: AdaptyFlowController, didReceiveError error: AdaptyUIError) {}
    public func flowController(_ controller: AdaptyFlowController, didFailLoadingProductsWith error: AdaptyError)
      -> Bool
    { false }
    public func flowController(_ controller: AdaptyFlowController, didPartiallyLoadProducts failedIds: [String]) {}
    public func flowController(
      _ controller: AdaptyFlowController, didFinishWebPaymentNavigation product: AdaptyPaywallProduct?,
      error: AdaptyError?
    ) {}
    public func flowController(
      _ controller: AdaptyFlowController, didReceiveAnalyticEvent name: String, params: [String: any Sendable]
    ) {}
  }

  /// A flow designed in the console, as a UIKit view controller to present (Adapty 4.x's
  /// `AdaptyPaywallController`).
  public final class AdaptyFlowController: UIViewController {
    /// This presentation's id (a new one per controller).
    public let id = UUID().uuidString
    /// Receives what happens on the flow.
    public weak var delegate: (any AdaptyFlowControllerDelegate)?
    /// The configuration it draws.
    public let flowConfiguration: AdaptyUI.FlowConfiguration
    /// The placement of the flow it draws.
    public var flowPlacementId: String { flowConfiguration.flow.placement.id }
    /// The variation of the flow it draws.
    public var flowVariationId: String { flowConfiguration.flow.variationId }
    private let presentation: PaywallPresentation

    init(flowConfiguration: AdaptyUI.FlowConfiguration, delegate: any AdaptyFlowControllerDelegate) {
      self.flowConfiguration = flowConfiguration
      self.delegate = delegate
      presentation = PaywallPresentation(configuration: flowConfiguration)
      super.init(nibName: nil, bundle: nil)
      modalPresentationStyle = .fullScreen
      presentation.session.retryLoadingProducts = { [weak self] error in
        guard let self else { return false }
        return self.delegate?.flowController(self, didFailLoadingProductsWith: error) ?? true
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
      case .appeared: delegate.flowControllerDidAppear(self)
      case .disappeared: delegate.flowControllerDidDisappear(self)
      case .action(let action): delegate.flowController(self, didPerform: action)
      case .selected(let product): delegate.flowController(self, didSelectProduct: product)
      case .purchaseStarted(let product): delegate.flowController(self, didStartPurchase: product)
      case .purchaseFinished(let product, let result):
        delegate.flowController(self, didFinishPurchase: product, purchaseResult: result)
      case .purchaseFailed(let product, let error):
        delegate.flowController(self, didFailPurchase: product, error: error)
      case .restoreStarted: delegate.flowControllerDidStartRestore(self)
      case .restoreFinished(let profile): delegate.flowController(self, didFinishRestoreWith: profile)
      case .restoreFailed(let error): delegate.flowController(self, didFailRestoreWith: error)
      case .renderingFailed(let error): delegate.flowController(self, didReceiveError: error)
      case .productsPartiallyLoaded(let ids): delegate.flowController(self, didPartiallyLoadProducts: ids)
      }
    }
  }

  extension AdaptyUI {
    /// The view controller of a flow configuration (4.x); present it (full screen by default).
    @MainActor
    public static func flowController(
      with flowConfiguration: FlowConfiguration, delegate: any AdaptyFlowControllerDelegate,
      showDebugOverlay: Bool = false
    ) throws -> AdaptyFlowController {
      guard activation.withLock({ $0 }) else { throw AdaptyUIError.adaptyUINotActivated }
      return AdaptyFlowController(flowConfiguration: flowConfiguration, delegate: delegate)
    }
  }
#endif
