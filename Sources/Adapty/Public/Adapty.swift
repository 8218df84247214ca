import Foundation
import TollgateAPI

/// The SDK's entry point. Activate once at launch, then call from anywhere: every method is
/// `nonisolated` and safe from any task.
public enum Adapty {
  /// Activates the SDK. Reads the cached profile and delivers it to the delegate before any
  /// network request; creating or refreshing the profile on the server happens in the
  /// background. Throws `activateOnceError` (3005) on a second call.
  public nonisolated static func activate(with configuration: AdaptyConfiguration) async throws(AdaptyError) {
    try await Facade.shared.activate(configuration)
  }

  /// Activates with an API key (and optionally observer mode and a customer user id) and
  /// default options.
  public nonisolated static func activate(
    _ apiKey: String, observerMode: Bool = false, customerUserId: String? = nil
  ) async throws(AdaptyError) {
    try await activate(
      with: AdaptyConfiguration.builder(withAPIKey: apiKey).with(observerMode: observerMode)
        .with(customerUserId: customerUserId).build())
  }

  /// Receives profile updates. Setting it delivers the current profile to it right away.
  public nonisolated static var delegate: (any AdaptyDelegate)? {
    get { DelegateHolder.shared.delegate }
    set {
      DelegateHolder.shared.delegate = newValue
      if let runtime = Facade.shared.activeRuntime {
        Task { await runtime.broadcaster.deliverToDelegate() }
      }
    }
  }

  /// Every profile version, the current one first (what `@Published` gives on Apple
  /// platforms, available everywhere).
  public nonisolated static var profileUpdates: AsyncStream<AdaptyProfile> {
    Facade.shared.profileStream()
  }

  /// The latest profile from the server; the cached one when the server cannot be reached.
  public nonisolated static func getProfile() async throws(AdaptyError) -> AdaptyProfile {
    let runtime = try await Facade.shared.runtime()
    do {
      return try await runtime.profiles.refresh()
    } catch {
      guard error.adaptyErrorCode == .networkFailed || error.adaptyErrorCode == .serverError,
        let cached = await runtime.profiles.cachedProfile
      else { throw error }
      Log.info("getProfile: \(error.message) — returning the cached profile")
      return cached
    }
  }

  /// Sets or removes custom attributes.
  public nonisolated static func updateProfile(params: AdaptyProfileParameters) async throws(AdaptyError) {
    let runtime = try await Facade.shared.runtime()
    var changes: [String: JSONValue] = [:]
    for (key, value) in params.customAttributes {
      switch value {
      case .some(.string(let text)): changes[key] = .string(text)
      case .some(.number(let number)): changes[key] = .double(number)
      case .none: changes[key] = .null
      }
    }
    _ = try await runtime.profiles.update(UpdateProfileRequest(customAttributes: changes))
  }

  /// Identifies the user: a profile without a customer user id takes this one unless the
  /// customer has a profile already (another device, a reinstall), which this install then
  /// uses; a profile of another user is replaced by this user's own. After a switch the
  /// store's current entitlements are handed to the new profile in the background.
  public nonisolated static func identify(_ customerUserId: String) async throws(AdaptyError) {
    let runtime = try await Facade.shared.runtime()
    let before = await runtime.profiles.profileId
    try await runtime.profiles.identify(customerUserId)
    await runtime.placements.cache.dropSegmented()
    if await runtime.profiles.profileId != before {
      Task {
        do {
          try await runtime.purchases.sendEntitlements()
        } catch let error as AdaptyError {
          Log.warn("entitlements after identify: \(error.message)")
        } catch {}
      }
    }
  }

  /// Starts a new anonymous profile.
  public nonisolated static func logout() async throws(AdaptyError) {
    let runtime = try await Facade.shared.runtime()
    try await runtime.profiles.logout()
    await runtime.placements.cache.dropSegmented()
  }

  /// The level of records handed to the log handler.
  public nonisolated static var logLevel: AdaptyLog.Level {
    get { SDKLogger.shared.level }
    set { SDKLogger.shared.level = newValue }
  }

  /// Replaces the log handler (the default prints one line per record).
  public nonisolated static func setLogHandler(_ handler: @escaping AdaptyLog.Handler) {
    SDKLogger.shared.setHandler(handler)
  }
}
