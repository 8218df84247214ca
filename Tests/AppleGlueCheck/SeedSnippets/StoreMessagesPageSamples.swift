// The App Store messages page's Apple-only samples, as an app writes them (iOS 15 deployment
// target, so each call is wrapped in the page's own `#available`/`@available` checks).
import Adapty
import StoreKit
import SwiftUI
import UIKit

/// The page's SwiftUI sample, verbatim.
@available(iOS 16.0, *)
struct HomeView: View {
  @Environment(\.displayStoreKitMessage) private var displayStoreKitMessage

  var body: some View {
    Text("Home")
      .task {
        do {
          try await Adapty.showStoreMessages(using: displayStoreKitMessage)
        } catch {
          // handle the error
        }
      }
  }
}

/// The page's "only some types" sample, inside the same kind of view.
@available(iOS 16.0, *)
struct BillingView: View {
  @Environment(\.displayStoreKitMessage) private var displayStoreKitMessage

  var body: some View {
    Text("Billing")
      .task {
        do {
          try await Adapty.showStoreMessages(
            for: [.billingIssue, .priceIncreaseConsent],
            using: displayStoreKitMessage
          )
        } catch {
          // handle the error
        }
      }
  }
}

/// The page's UIKit sample, in the view controller an app would call it from.
final class SettingsViewController: UIViewController {
  func showPendingStoreMessages() async {
    if #available(iOS 16.0, *) {
      do {
        try await Adapty.showStoreMessages(in: view.window?.windowScene)
      } catch {
        // handle the error
      }
    }
  }

  func checkPendingTypes() async {
    if #available(iOS 16.0, *) {
      let pendingTypes = await Adapty.getPendingStoreMessageTypes()

      if pendingTypes.contains(.billingIssue) {
        // For example, skip the upsell and show the billing message first
      }
    }
  }
}
