#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// The alert item type `showAlertItem` defaults to (no alert).
  public struct AdaptyIdentifiablePlaceholder: Identifiable {
    /// Always `placeholder`.
    public var id: String { "placeholder" }
  }

  /// What the modifiers show while the configuration is nil: a spinner.
  @available(iOS 15.0, *)
  @MainActor
  public struct AdaptyLoadingPlaceholderView: View {
    /// The spinner.
    public init() {}

    public var body: some View {
      ProgressView().frame(maxWidth: .infinity, maxHeight: .infinity)
    }
  }

  /// A paywall designed in the console as a SwiftUI view, to embed anywhere (Adapty 3.x).
  /// The closures are the delegate's events; `showAlertItem` with `showAlertBuilder` shows the
  /// app's alerts over it.
  @available(iOS 15.0, *)
  @MainActor
  public struct AdaptyPaywallView<AlertItem: Identifiable>: View {
    @State private var session: PaywallSession
    @Environment(\.dismiss) private var dismiss
    private let handlers: PaywallHandlers
    private let showAlertItem: Binding<AlertItem?>
    private let showAlertBuilder: ((AlertItem) -> Alert)?

    /// The view of `paywallConfiguration`.
    public init(
      paywallConfiguration: AdaptyUI.PaywallConfiguration,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyPaywallProductWithoutDeterminingOffer) -> Void)? = nil,
      didStartPurchase: ((AdaptyPaywallProduct) -> Void)? = nil,
      didFinishPurchase: ((AdaptyPaywallProduct, AdaptyPurchaseResult) -> Void)? = nil,
      didFailPurchase: @escaping (AdaptyPaywallProduct, AdaptyError) -> Void,
      didFinishWebPaymentNavigation: ((AdaptyPaywallProduct?, AdaptyError?) -> Void)? = nil,
      didStartRestore: (() -> Void)? = nil,
      didFinishRestore: @escaping (AdaptyProfile) -> Void,
      didFailRestore: @escaping (AdaptyError) -> Void,
      didFailRendering: @escaping (AdaptyUIError) -> Void,
      didFailLoadingProducts: ((AdaptyError) -> Bool)? = nil,
      didPartiallyLoadProducts: (([String]) -> Void)? = nil,
      showAlertItem: Binding<AlertItem?>,
      showAlertBuilder: ((AlertItem) -> Alert)? = nil
    ) {
      let handlers = PaywallHandlers(
        didAppear: didAppear, didDisappear: didDisappear, didPerformAction: didPerformAction,
        didSelectProduct: didSelectProduct.map { select in { select($0) } }, didStartPurchase: didStartPurchase,
        didFinishPurchase: didFinishPurchase, didFailPurchase: didFailPurchase, didStartRestore: didStartRestore,
        didFinishRestore: didFinishRestore, didFailRestore: didFailRestore, didFailRendering: didFailRendering,
        didFailLoadingProducts: didFailLoadingProducts, didPartiallyLoadProducts: didPartiallyLoadProducts)
      self.init(
        configuration: paywallConfiguration, handlers: handlers, showAlertItem: showAlertItem,
        showAlertBuilder: showAlertBuilder)
    }

    init(
      configuration: AdaptyUI.PaywallConfiguration, handlers: PaywallHandlers, showAlertItem: Binding<AlertItem?>,
      showAlertBuilder: ((AlertItem) -> Alert)?
    ) {
      _session = State(
        wrappedValue: PaywallSession(configuration: configuration, retryLoadingProducts: handlers.retry) { _ in })
      self.handlers = handlers
      self.showAlertItem = showAlertItem
      self.showAlertBuilder = showAlertBuilder
    }

    public var body: some View {
      let (handlers, dismiss) = (self.handlers, self.dismiss)
      // Set before the canvas appears, so its first event is delivered.
      session.report = { event in handlers.handle(event, dismiss: { dismiss() }) }
      return alerted(PaywallCanvas(session: session))
    }

    private func alerted(_ canvas: PaywallCanvas) -> AnyView {
      guard let showAlertBuilder else { return AnyView(canvas) }
      return AnyView(canvas.alert(item: showAlertItem, content: showAlertBuilder))
    }
  }

  @available(iOS 15.0, *)
  extension AdaptyPaywallView where AlertItem == AdaptyIdentifiablePlaceholder {
    /// The view of `paywallConfiguration`, with no alerts of the app's.
    public init(
      paywallConfiguration: AdaptyUI.PaywallConfiguration,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyPaywallProductWithoutDeterminingOffer) -> Void)? = nil,
      didStartPurchase: ((AdaptyPaywallProduct) -> Void)? = nil,
      didFinishPurchase: ((AdaptyPaywallProduct, AdaptyPurchaseResult) -> Void)? = nil,
      didFailPurchase: @escaping (AdaptyPaywallProduct, AdaptyError) -> Void,
      didFinishWebPaymentNavigation: ((AdaptyPaywallProduct?, AdaptyError?) -> Void)? = nil,
      didStartRestore: (() -> Void)? = nil,
      didFinishRestore: @escaping (AdaptyProfile) -> Void,
      didFailRestore: @escaping (AdaptyError) -> Void,
      didFailRendering: @escaping (AdaptyUIError) -> Void,
      didFailLoadingProducts: ((AdaptyError) -> Bool)? = nil,
      didPartiallyLoadProducts: (([String]) -> Void)? = nil
    ) {
      self.init(
        paywallConfiguration: paywallConfiguration, didAppear: didAppear, didDisappear: didDisappear,
        didPerformAction: didPerformAction, didSelectProduct: didSelectProduct, didStartPurchase: didStartPurchase,
        didFinishPurchase: didFinishPurchase, didFailPurchase: didFailPurchase,
        didFinishWebPaymentNavigation: didFinishWebPaymentNavigation, didStartRestore: didStartRestore,
        didFinishRestore: didFinishRestore, didFailRestore: didFailRestore, didFailRendering: didFailRendering,
        didFailLoadingProducts: didFailLoadingProducts, didPartiallyLoadProducts: didPartiallyLoadProducts,
        showAlertItem: .constant(nil))
    }
  }

  /// A flow designed in the console as a SwiftUI view (Adapty 4.x's `AdaptyPaywallView`;
  /// `didReceiveError` was `didFailRendering`). Tollgate's flows run no script:
  /// `didReceiveAnalyticEvent` is never called.
  @MainActor
  public struct AdaptyFlowView<AlertItem: Identifiable>: View {
    private let paywall: AdaptyPaywallView<AlertItem>

    /// The view of `flowConfiguration`.
    public init(
      flowConfiguration: AdaptyUI.FlowConfiguration,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyPaywallProduct) -> Void)? = nil,
      didStartPurchase: ((AdaptyPaywallProduct) -> Void)? = nil,
      didFinishPurchase: ((AdaptyPaywallProduct, AdaptyPurchaseResult) -> Void)? = nil,
      didFailPurchase: @escaping (AdaptyPaywallProduct, AdaptyError) -> Void,
      didFinishWebPaymentNavigation: ((AdaptyPaywallProduct?, AdaptyError?) -> Void)? = nil,
      didStartRestore: (() -> Void)? = nil,
      didFinishRestore: @escaping (AdaptyProfile) -> Void,
      didFailRestore: @escaping (AdaptyError) -> Void,
      didReceiveError: @escaping (AdaptyUIError) -> Void,
      didFailLoadingProducts: ((AdaptyError) -> Bool)? = nil,
      didPartiallyLoadProducts: (([String]) -> Void)? = nil,
      didReceiveAnalyticEvent: ((String, [String: any Sendable]) -> Void)? = nil,
      showAlertItem: Binding<AlertItem?>,
      showAlertBuilder: ((AlertItem) -> Alert)? = nil
    ) {
      let handlers = PaywallHandlers(
        didAppear: didAppear, didDisappear: didDisappear, didPerformAction: didPerformAction,
        didSelectProduct: didSelectProduct, didStartPurchase: didStartPurchase, didFinishPurchase: didFinishPurchase,
        didFailPurchase: didFailPurchase, didStartRestore: didStartRestore, didFinishRestore: didFinishRestore,
        didFailRestore: didFailRestore, didFailRendering: didReceiveError,
        didFailLoadingProducts: didFailLoadingProducts, didPartiallyLoadProducts: didPartiallyLoadProducts)
      paywall = AdaptyPaywallView(
        configuration: flowConfiguration, handlers: handlers, showAlertItem: showAlertItem,
        showAlertBuilder: showAlertBuilder)
    }

    public var body: some View { paywall }
  }
#endif

#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  extension AdaptyFlowView where AlertItem == AdaptyIdentifiablePlaceholder {
    /// The view of `flowConfiguration`, with no alerts of the app's.
    public init(
      flowConfiguration: AdaptyUI.FlowConfiguration,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyPaywallProduct) -> Void)? = nil,
      didStartPurchase: ((AdaptyPaywallProduct) -> Void)? = nil,
      didFinishPurchase: ((AdaptyPaywallProduct, AdaptyPurchaseResult) -> Void)? = nil,
      didFailPurchase: @escaping (AdaptyPaywallProduct, AdaptyError) -> Void,
      didFinishWebPaymentNavigation: ((AdaptyPaywallProduct?, AdaptyError?) -> Void)? = nil,
      didStartRestore: (() -> Void)? = nil,
      didFinishRestore: @escaping (AdaptyProfile) -> Void,
      didFailRestore: @escaping (AdaptyError) -> Void,
      didReceiveError: @escaping (AdaptyUIError) -> Void,
      didFailLoadingProducts: ((AdaptyError) -> Bool)? = nil,
      didPartiallyLoadProducts: (([String]) -> Void)? = nil,
      didReceiveAnalyticEvent: ((String, [String: any Sendable]) -> Void)? = nil
    ) {
      self.init(
        flowConfiguration: flowConfiguration, didAppear: didAppear, didDisappear: didDisappear,
        didPerformAction: didPerformAction, didSelectProduct: didSelectProduct, didStartPurchase: didStartPurchase,
        didFinishPurchase: didFinishPurchase, didFailPurchase: didFailPurchase,
        didFinishWebPaymentNavigation: didFinishWebPaymentNavigation, didStartRestore: didStartRestore,
        didFinishRestore: didFinishRestore, didFailRestore: didFailRestore, didReceiveError: didReceiveError,
        didFailLoadingProducts: didFailLoadingProducts, didPartiallyLoadProducts: didPartiallyLoadProducts,
        didReceiveAnalyticEvent: didReceiveAnalyticEvent, showAlertItem: .constant(nil))
    }
  }
#endif
