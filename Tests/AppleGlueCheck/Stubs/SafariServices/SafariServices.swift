// Interface stubs of the SafariServices declarations AdaptyUI uses, written from Apple's
// documentation. Nothing here runs.
import Foundation
import UIKit

/// Mirrors https://developer.apple.com/documentation/safariservices/sfsafariviewcontroller
/// (`@MainActor class SFSafariViewController : UIViewController`, iOS 9.0+).
@available(iOS 9.0, *)
@MainActor
open class SFSafariViewController: UIViewController {
  /// Mirrors https://developer.apple.com/documentation/safariservices/sfsafariviewcontroller/init(url:)
  /// (`convenience init(url URL: URL)`).
  public convenience init(url URL: URL) { fatalError() }
}
