#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit
  #if canImport(SafariServices)
    import SafariServices
  #endif

  /// What both controllers (3.x paywall, 4.x flow) hold: the session and the SwiftUI canvas
  /// they embed; and the default answer to an action.
  @available(iOS 15.0, *)
  @MainActor
  final class PaywallPresentation {
    let session: PaywallSession

    init(configuration: AdaptyUI.PaywallConfiguration) {
      session = PaywallSession(configuration: configuration) { _ in }
    }

    /// The canvas as `parent`'s view.
    func embed(in parent: UIViewController) -> UIView {
      let hosting = UIHostingController(rootView: PaywallCanvas(session: session))
      parent.addChild(hosting)
      hosting.didMove(toParent: parent)
      return hosting.view
    }

    /// The default answer to an action: close dismisses, a link opens in the browser or in
    /// a Safari sheet over `controller`, a custom action does nothing.
    static func perform(_ action: AdaptyUI.Action, from controller: UIViewController) {
      switch action {
      case .close: controller.dismiss(animated: true)
      case .openURL(let url, .inAppBrowser):
        #if canImport(SafariServices)
          controller.present(SFSafariViewController(url: url), animated: true)
        #else
          UIApplication.shared.open(url)
        #endif
      case .openURL(let url, _): UIApplication.shared.open(url)
      case .custom: break
      }
    }
  }
#endif
