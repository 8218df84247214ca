// Interface stubs of the UIKit declarations the SDK's glue and the seed samples use,
// written from Apple's documentation. Nothing here runs: every body is `fatalError()`.
@_exported import Foundation

/// Mirrors https://developer.apple.com/documentation/uikit/uiresponder
/// (`@MainActor class UIResponder : NSObject`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
@MainActor
open class UIResponder: NSObject {}

/// Mirrors https://developer.apple.com/documentation/uikit/uiview
/// (`@MainActor class UIView : UIResponder`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
@MainActor
open class UIView: UIResponder {
  /// Mirrors https://developer.apple.com/documentation/uikit/uiview/window
  /// (`var window: UIWindow? { get }`).
  open var window: UIWindow? { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/uikit/uiwindow
/// (`@MainActor class UIWindow : UIView`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
@MainActor
open class UIWindow: UIView {
  /// Mirrors https://developer.apple.com/documentation/uikit/uiwindow/windowscene
  /// (`weak var windowScene: UIWindowScene? { get set }`, iOS 13.0+).
  @available(iOS 13.0, macCatalyst 13.1, *)
  open weak var windowScene: UIWindowScene? {
    get { fatalError() }
    set { fatalError() }
  }
}

/// Mirrors https://developer.apple.com/documentation/uikit/uiscene
/// (`@MainActor class UIScene : UIResponder`, iOS 13.0+).
@available(iOS 13.0, macCatalyst 13.1, *)
@MainActor
open class UIScene: UIResponder {}

/// Mirrors https://developer.apple.com/documentation/uikit/uiwindowscene
/// (`@MainActor class UIWindowScene : UIScene`, iOS 13.0+).
@available(iOS 13.0, macCatalyst 13.1, *)
@MainActor
open class UIWindowScene: UIScene {}

/// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller
/// (`@MainActor class UIViewController : UIResponder`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
@MainActor
open class UIViewController: UIResponder {
  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/view
  /// (`var view: UIView! { get set }`).
  open var view: UIView! {
    get { fatalError() }
    set { fatalError() }
  }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/dismiss(animated:completion:)
  /// (`func dismiss(animated flag: Bool, completion: (() -> Void)? = nil)`).
  open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/init(nibname:bundle:)
  /// (`init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?)`).
  public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/init(coder:)
  /// (`init?(coder: NSCoder)`).
  public required init?(coder: NSCoder) { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/loadview()
  open func loadView() { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/addchild(_:)
  /// (`func addChild(_ childController: UIViewController)`, iOS 5.0+).
  open func addChild(_ childController: UIViewController) { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/didmove(toparent:)
  /// (`func didMove(toParent parent: UIViewController?)`, iOS 5.0+).
  open func didMove(toParent parent: UIViewController?) { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/present(_:animated:completion:)
  /// (`func present(_ viewControllerToPresent: UIViewController, animated flag: Bool,
  /// completion: (() -> Void)? = nil)`, iOS 5.0+).
  open func present(
    _ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil
  ) { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/modalpresentationstyle
  /// (`var modalPresentationStyle: UIModalPresentationStyle { get set }`, iOS 3.2+).
  open var modalPresentationStyle: UIModalPresentationStyle {
    get { fatalError() }
    set { fatalError() }
  }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiviewcontroller/preferredstatusbarstyle
  /// (`var preferredStatusBarStyle: UIStatusBarStyle { get }`, iOS 7.0+).
  open var preferredStatusBarStyle: UIStatusBarStyle { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/uikit/uimodalpresentationstyle
/// (`enum UIModalPresentationStyle : Int, @unchecked Sendable`, iOS 3.2+; the cases used).
@available(iOS 3.2, macCatalyst 13.1, *)
public enum UIModalPresentationStyle: Int, @unchecked Sendable {
  case fullScreen = 0
  case pageSheet = 1
  case formSheet = 2
  case overFullScreen = 5
  case automatic = -2
}

/// Mirrors https://developer.apple.com/documentation/uikit/uistatusbarstyle
/// (`enum UIStatusBarStyle : Int, @unchecked Sendable`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
public enum UIStatusBarStyle: Int, @unchecked Sendable {
  case `default` = 0
  case lightContent = 1
  case darkContent = 3
}

/// Mirrors https://developer.apple.com/documentation/uikit/uicolor
/// (`class UIColor : NSObject`, iOS 2.0+; Sendable since iOS 17 SDK).
@available(iOS 2.0, macCatalyst 13.1, *)
open class UIColor: NSObject, @unchecked Sendable {}

/// Mirrors https://developer.apple.com/documentation/uikit/uifont
/// (`class UIFont : NSObject`, iOS 2.0+; Sendable since iOS 17 SDK).
@available(iOS 2.0, macCatalyst 13.1, *)
open class UIFont: NSObject, @unchecked Sendable {}

/// Mirrors https://developer.apple.com/documentation/uikit/uiimage
/// (`class UIImage : NSObject`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
open class UIImage: NSObject, @unchecked Sendable {
  /// Mirrors https://developer.apple.com/documentation/uikit/uiimage/init(data:)
  /// (`init?(data: Data)`).
  public init?(data: Data) { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/uikit/uiapplication
/// (`@MainActor class UIApplication : UIResponder`, iOS 2.0+).
@available(iOS 2.0, macCatalyst 13.1, *)
@MainActor
open class UIApplication: UIResponder {
  /// Mirrors https://developer.apple.com/documentation/uikit/uiapplication/shared
  /// (`class var shared: UIApplication { get }`).
  open class var shared: UIApplication { fatalError() }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey
  public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
  }

  /// Mirrors https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:)
  /// (`func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey : Any] = [:],
  /// completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil)`, iOS 10.0+).
  @available(iOS 10.0, *)
  open func open(
    _ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
    completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
  ) { fatalError() }
}
