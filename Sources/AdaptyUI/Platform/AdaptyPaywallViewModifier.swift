#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// Presents a paywall configuration over a view while `isPresented` is true; the
  /// placeholder while the configuration is nil.
  @available(iOS 15.0, *)
  struct AdaptyPaywallPresentation<Placeholder: View, AlertItem: Identifiable>: ViewModifier {
    @Binding var isPresented: Bool
    let fullScreen: Bool
    let configuration: AdaptyUI.PaywallConfiguration?
    let handlers: PaywallHandlers
    let showAlertItem: Binding<AlertItem?>
    let showAlertBuilder: ((AlertItem) -> Alert)?
    let placeholderBuilder: (() -> Placeholder)?

    func body(content: Content) -> some View {
      if fullScreen {
        content.fullScreenCover(isPresented: $isPresented) { paywall }
      } else {
        content.sheet(isPresented: $isPresented) { paywall }
      }
    }

    private var paywall: AnyView {
      guard let configuration else {
        return placeholderBuilder.map { AnyView($0()) } ?? AnyView(AdaptyLoadingPlaceholderView())
      }
      return AnyView(
        AdaptyPaywallView(
          configuration: configuration, handlers: handlers, showAlertItem: showAlertItem,
          showAlertBuilder: showAlertBuilder))
    }
  }

  @available(iOS 15.0, *)
  extension View {
    /// `paywall(isPresented:…)` with no alerts of the app's.
    public func paywall<Placeholder: View>(
      isPresented: Binding<Bool>,
      fullScreen: Bool = true,
      paywallConfiguration: AdaptyUI.PaywallConfiguration?,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyProduct) -> Void)? = nil,
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
      placeholderBuilder: (() -> Placeholder)? = { AdaptyLoadingPlaceholderView() }
    ) -> some View {
      paywall(
        isPresented: isPresented, fullScreen: fullScreen, paywallConfiguration: paywallConfiguration,
        didAppear: didAppear, didDisappear: didDisappear, didPerformAction: didPerformAction,
        didSelectProduct: didSelectProduct, didStartPurchase: didStartPurchase, didFinishPurchase: didFinishPurchase,
        didFailPurchase: didFailPurchase, didFinishWebPaymentNavigation: didFinishWebPaymentNavigation,
        didStartRestore: didStartRestore, didFinishRestore: didFinishRestore, didFailRestore: didFailRestore,
        didFailRendering: didFailRendering, didFailLoadingProducts: didFailLoadingProducts,
        didPartiallyLoadProducts: didPartiallyLoadProducts,
        showAlertItem: Binding<AdaptyIdentifiablePlaceholder?>.constant(nil), showAlertBuilder: nil,
        placeholderBuilder: placeholderBuilder)
    }

    /// `flow(isPresented:…)` with no alerts of the app's.
    public func flow<Placeholder: View>(
      isPresented: Binding<Bool>,
      fullScreen: Bool = true,
      flowConfiguration: AdaptyUI.FlowConfiguration?,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyProduct) -> Void)? = nil,
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
      placeholderBuilder: (() -> Placeholder)? = { AdaptyLoadingPlaceholderView() }
    ) -> some View {
      paywall(
        isPresented: isPresented, fullScreen: fullScreen, paywallConfiguration: flowConfiguration,
        didAppear: didAppear, didDisappear: didDisappear, didPerformAction: didPerformAction,
        didSelectProduct: didSelectProduct, didStartPurchase: didStartPurchase, didFinishPurchase: didFinishPurchase,
        didFailPurchase: didFailPurchase, didFinishWebPaymentNavigation: didFinishWebPaymentNavigation,
        didStartRestore: didStartRestore, didFinishRestore: didFinishRestore, didFailRestore: didFailRestore,
        didFailRendering: didReceiveError, didFailLoadingProducts: didFailLoadingProducts,
        didPartiallyLoadProducts: didPartiallyLoadProducts,
        showAlertItem: Binding<AdaptyIdentifiablePlaceholder?>.constant(nil), showAlertBuilder: nil,
        placeholderBuilder: placeholderBuilder)
    }

    /// Presents the paywall of `paywallConfiguration` while `isPresented` is true, full screen
    /// or as a sheet (Adapty 3.x). Left out: close dismisses, links open, a purchase that
    /// succeeded dismisses, a product load that failed is tried again.
    public func paywall<Placeholder: View, AlertItem: Identifiable>(
      isPresented: Binding<Bool>,
      fullScreen: Bool = true,
      paywallConfiguration: AdaptyUI.PaywallConfiguration?,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyProduct) -> Void)? = nil,
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
      showAlertBuilder: ((AlertItem) -> Alert)? = nil,
      placeholderBuilder: (() -> Placeholder)? = { AdaptyLoadingPlaceholderView() }
    ) -> some View {
      modifier(
        AdaptyPaywallPresentation(
          isPresented: isPresented, fullScreen: fullScreen, configuration: paywallConfiguration,
          handlers: PaywallHandlers(
            didAppear: didAppear, didDisappear: didDisappear, didPerformAction: didPerformAction,
            didSelectProduct: didSelectProduct.map { select in { select($0) } }, didStartPurchase: didStartPurchase,
            didFinishPurchase: didFinishPurchase, didFailPurchase: didFailPurchase, didStartRestore: didStartRestore,
            didFinishRestore: didFinishRestore, didFailRestore: didFailRestore, didFailRendering: didFailRendering,
            didFailLoadingProducts: didFailLoadingProducts, didPartiallyLoadProducts: didPartiallyLoadProducts),
          showAlertItem: showAlertItem, showAlertBuilder: showAlertBuilder, placeholderBuilder: placeholderBuilder))
    }

    /// Presents the flow of `flowConfiguration` while `isPresented` is true (Adapty 4.x's
    /// `.paywall`; `didReceiveError` was `didFailRendering`; `didReceiveAnalyticEvent` is
    /// never called: Tollgate's flows run no script).
    public func flow<Placeholder: View, AlertItem: Identifiable>(
      isPresented: Binding<Bool>,
      fullScreen: Bool = true,
      flowConfiguration: AdaptyUI.FlowConfiguration?,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyProduct) -> Void)? = nil,
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
      showAlertBuilder: ((AlertItem) -> Alert)? = nil,
      placeholderBuilder: (() -> Placeholder)? = { AdaptyLoadingPlaceholderView() }
    ) -> some View {
      paywall(
        isPresented: isPresented, fullScreen: fullScreen, paywallConfiguration: flowConfiguration,
        didAppear: didAppear, didDisappear: didDisappear, didPerformAction: didPerformAction,
        didSelectProduct: didSelectProduct, didStartPurchase: didStartPurchase, didFinishPurchase: didFinishPurchase,
        didFailPurchase: didFailPurchase, didFinishWebPaymentNavigation: didFinishWebPaymentNavigation,
        didStartRestore: didStartRestore, didFinishRestore: didFinishRestore, didFailRestore: didFailRestore,
        didFailRendering: didReceiveError, didFailLoadingProducts: didFailLoadingProducts,
        didPartiallyLoadProducts: didPartiallyLoadProducts, showAlertItem: showAlertItem,
        showAlertBuilder: showAlertBuilder, placeholderBuilder: placeholderBuilder)
    }
  }
#endif
