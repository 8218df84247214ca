import Adapty
import Foundation

/// Observer mode: the app buys and restores with its own code; `AdaptyUI` draws the paywall
/// and calls this when its buttons are pressed, showing progress between the two callbacks.
public protocol AdaptyObserverModeResolver: Sendable {
  /// The purchase button: buy `product` yourself; call `onStartPurchase` when your purchase
  /// starts and `onFinishPurchase` when it ends.
  func observerMode(
    didInitiatePurchase product: AdaptyPaywallProduct,
    onStartPurchase: @MainActor @Sendable @escaping () -> Void,
    onFinishPurchase: @MainActor @Sendable @escaping () -> Void
  )

  /// The restore button: restore yourself, calling `onStartRestore` and `onFinishRestore`.
  func observerModeDidInitiateRestorePurchases(
    onStartRestore: @MainActor @Sendable @escaping () -> Void,
    onFinishRestore: @MainActor @Sendable @escaping () -> Void
  )
}

/// Values of the app's own tags in paywall texts. Accepted for Adapty's shape; Tollgate's
/// paywall documents have product tokens (`{price}` …) but no custom tags yet.
@MainActor
public protocol AdaptyUITagResolver: Sendable {
  /// The text for `tag`; nil leaves it empty.
  func replacement(for tag: String) -> String?
}

extension [String: String]: AdaptyUITagResolver {
  /// The value stored under `tag`.
  public func replacement(for tag: String) -> String? { self[tag] }
}

/// When the app's countdown timers end. Accepted for Adapty's shape; Tollgate's paywall
/// documents have no countdown block, so nothing asks it yet.
@MainActor
public protocol AdaptyUITimerResolver: Sendable {
  /// The end of the timer `timerId`.
  func timerEndAtDate(for timerId: String) -> Date
}

extension [String: Date]: AdaptyUITimerResolver {
  /// The date stored under `timerId`, else an hour from now (as Adapty answers).
  public func timerEndAtDate(for timerId: String) -> Date { self[timerId] ?? Date().addingTimeInterval(3600) }
}

/// The app's own images, videos, colors and fonts by id. Accepted for Adapty's shape;
/// Tollgate's documents reference images uploaded through the console, never an app asset id.
public protocol AdaptyUIAssetsResolver: Sendable {
  /// The asset for `id`, or nil.
  func asset(for id: String) -> AdaptyUICustomAsset?
}

extension [String: AdaptyUICustomAsset]: AdaptyUIAssetsResolver {
  /// The asset stored under `id`.
  public func asset(for id: String) -> AdaptyUICustomAsset? { self[id] }
}

/// A permission a paywall may ask for (4.x).
public enum AdaptyUIPermission: Sendable, Hashable {
  case custom(String), push, camera, microphone, locationWhenInUse, locationAlways, locationFullAccuracy, photos,
    contacts, tracking, calendar, bluetooth, motion, reminders, speech, mediaLibrary, localNetwork, focusStatus,
    homekit, health, siri, music
}

/// What became of a permission request (4.x).
public enum AdaptyUIPermissionResult: Sendable {
  case granted(String?)
  case denied(String?)
}

/// Answers a paywall's system requests (4.x). Accepted for Adapty's shape; Tollgate's
/// documents make no permission or review requests, so nothing asks it yet.
@MainActor
public protocol AdaptyUISystemRequestsHandler: Sendable {
  /// Asks the user for `permission`.
  func handlePermission(_ permission: AdaptyUIPermission, withCustomArgs customArgs: [String: String]?) async
    -> AdaptyUIPermissionResult
  /// Asks for an App Store review.
  func handleAppReviewRequest() async
}

extension AdaptyUISystemRequestsHandler {
  /// Does nothing by default.
  public func handleAppReviewRequest() async {}
}

/// Adapty's short names of the resolvers.
public typealias AdaptyTagResolver = AdaptyUITagResolver
/// Adapty's short name of `AdaptyUITimerResolver`.
public typealias AdaptyTimerResolver = AdaptyUITimerResolver
/// Adapty's short name of `AdaptyUIAssetsResolver`.
public typealias AdaptyAssetsResolver = AdaptyUIAssetsResolver
/// Adapty's short name of `AdaptyUICustomAsset`.
public typealias AdaptyCustomAsset = AdaptyUICustomAsset
/// Adapty's short name of `AdaptyUISystemRequestsHandler` (4.x).
public typealias AdaptySystemRequestsHandler = AdaptyUISystemRequestsHandler
/// Adapty's short name of `AdaptyUIPermission` (4.x).
public typealias AdaptyPermission = AdaptyUIPermission
/// Adapty's short name of `AdaptyUIPermissionResult` (4.x).
public typealias AdaptyPermissionResult = AdaptyUIPermissionResult

#if !((os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit) && canImport(AVFoundation))
  /// An app asset: images, videos, colors and gradients are UIKit and SwiftUI values, so
  /// where those are missing there is none (see `Platform/AdaptyCustomAssets.swift`).
  public enum AdaptyUICustomAsset: Sendable {}
#endif
