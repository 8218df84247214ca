// Adapty 4.x names: flows, their configuration, controller, delegate, modifier and view.
import Adapty
import AdaptyUI
import SwiftUI
import UIKit

final class FlowHostViewController: UIViewController, AdaptyFlowControllerDelegate {
  func show(placementId: String) async throws {
    let flow = try await Adapty.getFlow(placementId: placementId)
    let products = try await Adapty.getPaywallProducts(flow: flow)
    let configuration = try await AdaptyUI.getFlowConfiguration(forFlow: flow, locale: "en", products: products)
    let controller = try AdaptyUI.flowController(with: configuration, delegate: self)
    print(controller.flowPlacementId, controller.flowVariationId)
    present(controller, animated: true)
  }

  func flowController(_ controller: AdaptyFlowController, didPerform action: AdaptyUI.Action) {
    if case .close = action { controller.dismiss(animated: true) }
  }

  func flowController(_ controller: AdaptyFlowController, didSelectProduct product: AdaptyPaywallProduct) {}

  func flowController(
    _ controller: AdaptyFlowController, didFailPurchase product: AdaptyPaywallProduct, error: AdaptyError
  ) {}

  func flowController(_ controller: AdaptyFlowController, didFinishRestoreWith profile: AdaptyProfile) {}

  func flowController(_ controller: AdaptyFlowController, didFailRestoreWith error: AdaptyError) {}

  func flowController(_ controller: AdaptyFlowController, didReceiveError error: AdaptyUIError) {}

  func flowController(
    _ controller: AdaptyFlowController, didReceiveAnalyticEvent name: String, params: [String: any Sendable]
  ) {}
}

struct FlowScreen: View {
  @State var presented = false
  let flowConfiguration: AdaptyUI.FlowConfiguration?

  var body: some View {
    Text("Flow")
      .flow(
        isPresented: $presented,
        flowConfiguration: flowConfiguration,
        didFailPurchase: { product, error in },
        didFinishRestore: { profile in },
        didFailRestore: { error in },
        didReceiveError: { error in })
  }
}

struct EmbeddedFlow: View {
  let flowConfiguration: AdaptyUI.FlowConfiguration

  var body: some View {
    AdaptyFlowView(
      flowConfiguration: flowConfiguration,
      didFailPurchase: { product, error in },
      didFinishRestore: { profile in },
      didFailRestore: { error in },
      didReceiveError: { error in })
  }
}
