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
}

extension PaywallEvent: CustomStringConvertible {
  /// One line for the log (`purchase finished pro_annual success`).
  var description: String {
    switch self {
    case .appeared: "appeared"
    case .disappeared: "disappeared"
    case .action(.close): "close"
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
  /// Called after every change of state the view draws.
  var onChange: () -> Void = {}
  private(set) var selectedProductId: String?
  private(set) var isPurchasing = false
  private(set) var isRestoring = false
  private(set) var isCloseButtonVisible: Bool
  private var reportedRenderingFailure = false
  /// Recording the impression (once per presentation); tests await it.
  private(set) var impression: Task<Void, Never>?

  init(configuration: AdaptyUI.PaywallConfiguration, report: @escaping (PaywallEvent) -> Void) {
    self.configuration = configuration
    self.report = report
    isCloseButtonVisible = configuration.document.screen.closeButton.delayMs == 0
  }

  /// The tree to draw; nil (and `renderingFailed` reported) when it cannot be drawn.
  func resolved(appearance: String) -> ResolvedPaywall? {
    do {
      let tree = try configuration.resolve(appearance: appearance, selected: selectedProductId)
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

  /// The view is on screen: the impression is recorded once per presentation, and the close
  /// button appears after its delay.
  func appeared() {
    emit(.appeared)
    if impression == nil {
      let (commerce, flow) = (configuration.commerce, configuration.flow)
      impression = Task { await commerce.logShow(flow) }
    }
    guard !isCloseButtonVisible else { return }
    let (clock, delay) = (configuration.clock, Double(configuration.document.screen.closeButton.delayMs) / 1000)
    Task {
      try? await clock.sleep(seconds: delay)
      self.isCloseButtonVisible = true
      self.onChange()
    }
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

  /// The purchase button: `makePurchase` of the selected product (the flow's variation).
  func purchase() async {
    guard !isPurchasing, !isRestoring, let product = selectedProductId.flatMap(product) else { return }
    isPurchasing = true
    onChange()
    emit(.purchaseStarted(product))
    do {
      let result = try await configuration.commerce.purchase(product)
      emit(.purchaseFinished(product, result))
    } catch {
      emit(.purchaseFailed(product, error))
    }
    isPurchasing = false
    onChange()
  }

  /// The restore button.
  func restore() async {
    guard !isPurchasing, !isRestoring else { return }
    isRestoring = true
    onChange()
    emit(.restoreStarted)
    do {
      emit(.restoreFinished(try await configuration.commerce.restore()))
    } catch {
      emit(.restoreFailed(error))
    }
    isRestoring = false
    onChange()
  }

  /// The close button.
  func close() { emit(.action(.close)) }

  /// A legal link; a link that is not a URL does nothing.
  func open(_ link: String) {
    guard let url = URL(string: link) else { return }
    emit(.action(.openURL(url: url, in: .externalBrowser)))
  }

  private func emit(_ event: PaywallEvent) {
    Log.verbose("paywall \(configuration.flow.variationId): \(event)")
    report(event)
  }

  private func product(_ id: String) -> AdaptyPaywallProduct? {
    configuration.products.first { $0.vendorProductId == id }
  }
}
