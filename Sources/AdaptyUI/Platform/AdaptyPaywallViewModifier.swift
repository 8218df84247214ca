#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// Presents a paywall configuration over a view while `isPresented` is true.
  @available(iOS 15.0, *)
  struct AdaptyPaywallPresentation: ViewModifier {
    @Binding var isPresented: Bool
    let fullScreen: Bool
    let configuration: AdaptyUI.PaywallConfiguration?
    let report: (PaywallEvent, Binding<Bool>) -> Void

    func body(content: Content) -> some View {
      if fullScreen {
        content.fullScreenCover(isPresented: $isPresented) { paywall }
      } else {
        content.sheet(isPresented: $isPresented) { paywall }
      }
    }

    private var paywall: AnyView {
      guard let configuration else { return AnyView(EmptyView()) }
      let binding = $isPresented
      return AnyView(AdaptyPaywallView(session: PaywallSession(configuration: configuration) { report($0, binding) }))
    }
  }

  @available(iOS 15.0, *)
  extension View {
    /// Presents the paywall of `paywallConfiguration` while `isPresented` is true, full screen
    /// or as a sheet. Without `didPerformAction`, close dismisses it and links open in the
    /// browser; a purchase that succeeded dismisses it unless `didFinishPurchase` is given.
    public func paywall(
      isPresented: Binding<Bool>,
      fullScreen: Bool = true,
      paywallConfiguration: AdaptyUI.PaywallConfiguration?,
      didAppear: (() -> Void)? = nil,
      didDisappear: (() -> Void)? = nil,
      didPerformAction: ((AdaptyUI.Action) -> Void)? = nil,
      didSelectProduct: ((AdaptyPaywallProduct) -> Void)? = nil,
      didStartPurchase: ((AdaptyPaywallProduct) -> Void)? = nil,
      didFinishPurchase: ((AdaptyPaywallProduct, AdaptyPurchaseResult) -> Void)? = nil,
      didFailPurchase: @escaping (AdaptyPaywallProduct, AdaptyError) -> Void,
      didStartRestore: (() -> Void)? = nil,
      didFinishRestore: @escaping (AdaptyProfile) -> Void,
      didFailRestore: @escaping (AdaptyError) -> Void,
      didFailRendering: @escaping (AdaptyUIError) -> Void
    ) -> some View {
      modifier(
        AdaptyPaywallPresentation(
          isPresented: isPresented, fullScreen: fullScreen, configuration: paywallConfiguration
        ) { event, presented in
          switch event {
          case .appeared: didAppear?()
          case .disappeared: didDisappear?()
          case .action(let action):
            if let didPerformAction { return didPerformAction(action) }
            switch action {
            case .close: presented.wrappedValue = false
            case .openURL(let url, _): UIApplication.shared.open(url)
            case .custom: break
            }
          case .selected(let product): didSelectProduct?(product)
          case .purchaseStarted(let product): didStartPurchase?(product)
          case .purchaseFinished(let product, let result):
            if let didFinishPurchase { return didFinishPurchase(product, result) }
            if !result.isPurchaseCancelled { presented.wrappedValue = false }
          case .purchaseFailed(let product, let error): didFailPurchase(product, error)
          case .restoreStarted: didStartRestore?()
          case .restoreFinished(let profile): didFinishRestore(profile)
          case .restoreFailed(let error): didFailRestore(error)
          case .renderingFailed(let error): didFailRendering(error)
          }
        })
    }
  }
#endif
