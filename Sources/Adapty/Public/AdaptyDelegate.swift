/// Receives the profile: the cached one right after activation (or as soon as the delegate
/// is set), then every new version. Never twice for the same version.
///
/// Implementations are usually main-actor classes with a `nonisolated` method:
/// ```swift
/// @MainActor final class ProfileObserver: AdaptyDelegate {
///   nonisolated func didLoadLatestProfile(_ profile: AdaptyProfile) { … }
/// }
/// ```
public protocol AdaptyDelegate: AnyObject, Sendable {
  /// A newer profile is available. Called on a background task, in version order.
  func didLoadLatestProfile(_ profile: AdaptyProfile)
}
