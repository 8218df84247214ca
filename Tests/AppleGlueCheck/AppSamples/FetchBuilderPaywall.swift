// Fetching a Paywall Builder paywall and its view configuration, async and with callbacks,
// with the optional resolvers.
import Adapty
import AdaptyUI
import Foundation

@MainActor
final class PaywallFetcher {
  var configuration: AdaptyUI.PaywallConfiguration?

  func load() async {
    do {
      let paywall = try await Adapty.getPaywall(placementId: "YOUR_PLACEMENT_ID", locale: "en")
      guard paywall.hasViewConfiguration else {
        // A remote config paywall: draw it yourself.
        print(paywall.remoteConfig?.dictionary ?? [:])
        return
      }
      let products = try await Adapty.getPaywallProducts(paywall: paywall)
      configuration = try await AdaptyUI.getPaywallConfiguration(
        forPaywall: paywall,
        loadTimeout: 10,
        products: products,
        tagResolver: ["USERNAME": "John"],
        timerResolver: ["CUSTOM_TIMER_NY": Date(timeIntervalSince1970: 1_767_225_600)])
      print(paywall.placement.abTestName ?? "", paywall.placement.revision, paywall.variationId)
    } catch {
      print(error)
    }
  }

  func loadWithCallbacks() {
    Adapty.getPaywall(placementId: "YOUR_PLACEMENT_ID") { result in
      switch result {
      case let .success(paywall):
        AdaptyUI.getPaywallConfiguration(forPaywall: paywall) { result in
          switch result {
          case let .success(configuration): print(configuration.id, configuration.locale)
          case let .failure(error): print(error.adaptyErrorCode)
          }
        }
      case let .failure(error):
        print(error)
      }
    }
  }
}
