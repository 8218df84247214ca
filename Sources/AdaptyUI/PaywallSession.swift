import Adapty
import Foundation

/// What happened on a presented paywall; the UIKit controller hands each to its delegate,
/// the SwiftUI modifier to its closures.
enum PaywallEvent: Sendable {
  case appeared
  case disappeared
  case action(AdaptyUI.Action)
  case selected(AdaptyPaywallProduct)
  case purchaseStarted(AdaptyPaywallProduct)
  /// Also a cancelled purchase (`AdaptyPurchaseResult.userCancelled`), as `makePurchase` answers.
  case purchaseFinished(AdaptyPaywallProduct, AdaptyPurchaseResult)
  case purchaseFailed(AdaptyPaywallProduct, AdaptyError)
  case restoreStarted
  case restoreFinished(AdaptyProfile)
  case restoreFailed(AdaptyError)
  case renderingFailed(AdaptyUIError)
  /// Some of the flow's products are unknown to the store (their ids).
  case productsPartiallyLoaded([String])
}

extension PaywallEvent: CustomStringConvertible {
  /// One line for the log (`purchase finished pro_annual success`).
  var description: String {
    switch self {
    case .appeared: "appeared"
    case .disappeared: "disappeared"
    case .action(.close): "close"
    case .action(.openURL(let url, .inAppBrowser)): "open \(url.absoluteString) in app"
    case .action(.openURL(let url, _)): "open \(url.absoluteString)"
    case .action(.custom(let id)): "custom \(id)"
    case .selected(let product): "selected \(product.vendorProductId)"
    case .purchaseStarted(let product): "purchase started \(product.vendorProductId)"
    case .purchaseFinished(let product, let result):
      "purchase finished \(product.vendorProductId) \(result.isPurchaseCancelled ? "cancelled" : result.isPurchasePending ? "pending" : "success")"
    case .purchaseFailed(let product, let error): "purchase failed \(product.vendorProductId) \(error.errorCode)"
    case .restoreStarted: "restore started"
    case .restoreFinished: "restore finished"
    case .restoreFailed(let error): "restore failed \(error.errorCode)"
    case .renderingFailed(let error): "rendering failed \(error)"
    case .productsPartiallyLoaded(let ids): "products partially loaded, missing \(ids.joined(separator: ","))"
    }
  }
}

/// One presentation of a paywall: the selection, the close button's delay, purchase and
/// restore through the SDK, the impression. Everything the views do goes through it, so the
/// SwiftUI/UIKit layer only draws `resolved(appearance:)` and calls these methods.
@MainActor
final class PaywallSession {
  let configuration: AdaptyUI.PaywallConfiguration
  /// Where events go (the controller's delegate, the modifier's closures).
  var report: (PaywallEvent) -> Void
  /// Asked when the products could not be loaded: true loads them again (Adapty's
  /// `didFailLoadingProductsWith`); the controller's default says no, SwiftUI's yes.
  var retryLoadingProducts: (AdaptyError) -> Bool
  /// Called after every change of state the view draws.
  var onChange: () -> Void = {}
  private(set) var selectedProductId: String?
  private(set) var isPurchasing = false
  private(set) var isRestoring = false
  private(set) var isCloseButtonVisible: Bool
  /// The products as loaded now (none while they fail).
  private(set) var products: PaywallProducts
  /// Why the products could not be loaded; nil once they are.
  private(set) var productsError: AdaptyError?
  private var reportedRenderingFailure = false
  private var reportedProducts = false
  /// Recording the impression (once per presentation); tests await it.
  private(set) var impression: Task<Void, Never>?
  /// Loading the products again after a failure; tests await it.
  private(set) var productsReload: Task<Void, Never>?

  /// How long a failed product load waits before it is tried again.
  static let productsRetryDelay: Double = 2

  init(
    configuration: AdaptyUI.PaywallConfiguration,
    retryLoadingProducts: @escaping (AdaptyError) -> Bool = { _ in false },
    report: @escaping (PaywallEvent) -> Void
  ) {
    self.configuration = configuration
    self.report = report
    self.retryLoadingProducts = retryLoadingProducts
    isCloseButtonVisible = configuration.document.screen.closeButton.delayMs == 0
    products = PaywallProducts(configuration.products)
    productsError = configuration.productsError
  }

  /// The tree to draw; nil (and `renderingFailed` reported) when it cannot be drawn.
  func resolved(appearance: String) -> ResolvedPaywall? {
    do {
      let tree = try configuration.resolve(appearance: appearance, products: products, selected: selectedProductId)
      if selectedProductId == nil {
        selectedProductId = tree.blocks.lazy.compactMap { $0.products?.first(where: \.selected)?.id }.first
      }
      return tree
    } catch {
      // Views draw often; the failure is reported once.
      if !reportedRenderingFailure { emit(.renderingFailed(error)) }
      reportedRenderingFailure = true
      return nil
    }
  }

  /// The bytes of an image the tree references; nil draws the block without it.
  func image(_ sha256: String?) -> Data? { configuration.image(sha256) }

  /// The view is on screen: the impression is recorded once per presentation, the close
  /// button appears after its delay, and the products' state is reported (a failure is
  /// offered a retry; a partial load names the ids the store did not know).
  func appeared() {
    emit(.appeared)
    if impression == nil {
      let (commerce, flow) = (configuration.commerce, configuration.flow)
      impression = Task { await commerce.logShow(flow) }
    }
    if !reportedProducts {
      reportedProducts = true
      reportProducts()
    }
    guard !isCloseButtonVisible else { return }
    let (clock, delay) = (configuration.clock, Double(configuration.document.screen.closeButton.delayMs) / 1000)
    Task {
      try? await clock.sleep(seconds: delay)
      self.isCloseButtonVisible = true
      self.onChange()
    }
  }

  private func reportProducts() {
    if let error = productsError {
      guard retryLoadingProducts(error) else { return }
      let (commerce, flow, clock) = (configuration.commerce, configuration.flow, configuration.clock)
      productsReload = Task {
        try? await clock.sleep(seconds: Self.productsRetryDelay)
        do throws(AdaptyError) {
          self.products = PaywallProducts(try await commerce.products(flow))
          self.productsError = nil
          self.selectedProductId = nil
        } catch {
          self.productsError = error
        }
        self.onChange()
        self.reportProducts()
      }
      return
    }
    let missing = configuration.missingProductIds(in: products.all)
    if !missing.isEmpty { emit(.productsPartiallyLoaded(missing)) }
  }

  /// The view left the screen.
  func disappeared() { emit(.disappeared) }

  /// The user picked a product.
  func select(_ productId: String) {
    guard let product = product(productId), productId != selectedProductId else { return }
    selectedProductId = productId
    onChange()
    emit(.selected(product))
  }

  /// The purchase button: `makePurchase` of the selected product (the flow's variation), or,
  /// in observer mode, the app's own purchase code, with progress between its callbacks.
  func purchase() async {
    guard !isPurchasing, !isRestoring, let product = selectedProductId.flatMap(product) else { return }
    if let observer = configuration.observerModeResolver {
      observer.observerMode(
        didInitiatePurchase: product,
        onStartPurchase: { [weak self] in self?.setPurchasing(true) },
        onFinishPurchase: { [weak self] in self?.setPurchasing(false) })
      return
    }
    setPurchasing(true)
    emit(.purchaseStarted(product))
    do {
      let result = try await configuration.commerce.purchase(product)
      emit(.purchaseFinished(product, result))
    } catch {
      emit(.purchaseFailed(product, error))
    }
    setPurchasing(false)
  }

  /// The restore button: `restorePurchases`, or in observer mode the app's own restore.
  func restore() async {
    guard !isPurchasing, !isRestoring else { return }
    if let observer = configuration.observerModeResolver {
      observer.observerModeDidInitiateRestorePurchases(
        onStartRestore: { [weak self] in self?.setRestoring(true) },
        onFinishRestore: { [weak self] in self?.setRestoring(false) })
      return
    }
    setRestoring(true)
    emit(.restoreStarted)
    do {
      emit(.restoreFinished(try await configuration.commerce.restore()))
    } catch {
      emit(.restoreFailed(error))
    }
    setRestoring(false)
  }

  private func setPurchasing(_ value: Bool) {
    isPurchasing = value
    onChange()
  }

  private func setRestoring(_ value: Bool) {
    isRestoring = value
    onChange()
  }

  /// The close button.
  func close() { emit(.action(.close)) }

  /// A button with an action of the app's own (`custom_button`, its `action_id`).
  func custom(_ actionId: String) {
    guard !actionId.isEmpty else { return }
    emit(.action(.custom(id: actionId)))
  }

  /// A legal link, opened as the document says (`presentation`: `in_app` or, by default,
  /// the browser); a link that is not a URL does nothing.
  func open(_ link: String, presentation: String? = nil) {
    guard let url = URL(string: link) else { return }
    emit(.action(.openURL(url: url, in: presentation == "in_app" ? .inAppBrowser : .externalBrowser)))
  }

  private func emit(_ event: PaywallEvent) {
    Log.verbose("paywall \(configuration.flow.variationId): \(event)")
    report(event)
  }

  private func product(_ id: String) -> AdaptyPaywallProduct? {
    products.all.first { $0.vendorProductId == id }
  }
}
