import Adapty
import Foundation
import Synchronization
import TollgateAPI

/// Draws the paywalls designed in the console (`flows[].paywall`): get a configuration for a
/// fetched flow, then present it with `AdaptyUI.paywallController(with:delegate:)` (UIKit) or
/// the `.paywall(isPresented:paywallConfiguration:…)` modifier (SwiftUI). The names are
/// Adapty 3.x's, with the 4.x flow names beside them.
public enum AdaptyUI {
  /// How `AdaptyUI` keeps images.
  public struct Configuration: Sendable {
    /// The default: images on disk without a size limit.
    public static let `default` = Configuration(mediaCacheConfiguration: nil)

    /// The image cache; nil keeps the default.
    public let mediaCacheConfiguration: MediaCacheConfiguration?

    /// A configuration.
    public init(mediaCacheConfiguration: MediaCacheConfiguration?) {
      self.mediaCacheConfiguration = mediaCacheConfiguration
    }
  }

  /// The cache of paywall images. Images are kept on disk (`diskStorageSizeLimit` bounds
  /// it, oldest first; 0 is no limit); a presented paywall holds its own images in memory,
  /// so the memory limits are accepted for Adapty's shape and bound nothing shared.
  public struct MediaCacheConfiguration: Sendable {
    /// Accepted for Adapty's shape (see the type).
    public var memoryStorageTotalCostLimit: Int
    /// Accepted for Adapty's shape (see the type).
    public var memoryStorageCountLimit: Int
    /// The most bytes of images kept on disk; 0 is no limit.
    public var diskStorageSizeLimit: UInt

    /// Adapty's limits.
    public init(memoryStorageTotalCostLimit: Int, memoryStorageCountLimit: Int, diskStorageSizeLimit: UInt) {
      self.memoryStorageTotalCostLimit = memoryStorageTotalCostLimit
      self.memoryStorageCountLimit = memoryStorageCountLimit
      self.diskStorageSizeLimit = diskStorageSizeLimit
    }

    /// A disk limit alone.
    public init(diskStorageSizeLimit: UInt) {
      self.init(memoryStorageTotalCostLimit: 0, memoryStorageCountLimit: 0, diskStorageSizeLimit: diskStorageSizeLimit)
    }
  }

  /// Where a link opens (`AdaptyWebPresentation`).
  public typealias WebPresentation = AdaptyWebPresentation

  /// What the user asked for on the paywall.
  public enum Action: Sendable, Hashable {
    /// The close button.
    case close
    /// A link (terms, privacy), to open as the document says.
    case openURL(url: URL, in: AdaptyWebPresentation)
    /// A button with an action of the app's own.
    case custom(id: String)
  }

  static let activation = Mutex<Bool>(false)

  /// Prepares `AdaptyUI`; call once, right after `Adapty.activate`. Throws
  /// `AdaptyUIError.activateOnce` the second time, `.adaptyNotActivated` before `Adapty`.
  public static func activate(configuration: Configuration = .default) async throws {
    let host: AdaptyUIHost
    do { host = try await AdaptyUIHost.activated() } catch { throw AdaptyUIError.adaptyNotActivated }
    let first = activation.withLock { active in
      defer { active = true }
      return !active
    }
    guard first else { throw AdaptyUIError.activateOnce }
    if let limit = configuration.mediaCacheConfiguration?.diskStorageSizeLimit, limit > 0 {
      await host.limitImageCache(bytes: Int(limit))
    }
  }

  /// `activate(configuration:)` with a completion handler (callable where `await` is not,
  /// as `AdaptyUI.activate()` at launch); the error is an `AdaptyUIError` as an `AdaptyError`.
  @_disfavoredOverload
  public static func activate(configuration: Configuration = .default, _ completion: AdaptyErrorCompletion? = nil) {
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in
      do { try await activate(configuration: configuration) } catch { throw AdaptyError.wrapping(error) }
    }
  }

  /// The configuration to present `paywall` with: its document resolved against `products`
  /// (fetched from the store when nil: a failure is reported to the paywall's
  /// `didFailLoadingProductsWith`, which may ask to try again) and its images (from the disk
  /// cache, the fallback file or the server within `loadTimeout` seconds; one that cannot be
  /// had is left out, never a failure). With `observerModeResolver`, the app's own code buys
  /// and restores. A document newer than this SDK is replaced by the fallback file's; throws
  /// `AdaptyUIError.unsupportedTemplate` when there is none it can draw, `AdaptyError`
  /// `wrongParam` for a flow without a document (`hasViewConfiguration` false).
  public static func getPaywallConfiguration(
    forPaywall paywall: AdaptyFlow, loadTimeout: TimeInterval? = nil, products: [AdaptyPaywallProduct]? = nil,
    observerModeResolver: AdaptyObserverModeResolver? = nil, tagResolver: AdaptyUITagResolver? = nil,
    timerResolver: AdaptyTimerResolver? = nil, assetsResolver: AdaptyUIAssetsResolver? = nil
  ) async throws -> PaywallConfiguration {
    try await configuration(
      paywall, loadTimeout: loadTimeout, products: products,
      resolvers: .init(
        observerMode: observerModeResolver, tags: tagResolver, timers: timerResolver, assets: assetsResolver))
  }

  /// `getPaywallConfiguration` with a completion handler (as Adapty: no assets resolver,
  /// `loadTimeout` 5 s by default).
  public static func getPaywallConfiguration(
    forPaywall paywall: AdaptyFlow, loadTimeout: TimeInterval = 5.0, products: [AdaptyPaywallProduct]? = nil,
    observerModeResolver: AdaptyObserverModeResolver? = nil, tagResolver: AdaptyUITagResolver? = nil,
    timerResolver: AdaptyTimerResolver? = nil, _ completion: @escaping AdaptyResultCompletion<PaywallConfiguration>
  ) {
    let resolvers = PaywallConfiguration.Resolvers(
      observerMode: observerModeResolver, tags: tagResolver, timers: timerResolver)
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in
      do {
        return try await configuration(paywall, loadTimeout: loadTimeout, products: products, resolvers: resolvers)
      } catch {
        throw AdaptyError.wrapping(error)
      }
    }
  }

  /// The 4.x name of `getPaywallConfiguration`: `locale` picks the texts' language (the
  /// flow's remote-config locale by default); `systemRequestsHandler` is accepted (see its
  /// protocol).
  public static func getFlowConfiguration(
    forFlow flow: AdaptyFlow, locale: String? = nil, loadTimeout: TimeInterval? = nil,
    products: [AdaptyPaywallProduct]? = nil, observerModeResolver: AdaptyObserverModeResolver? = nil,
    tagResolver: AdaptyUITagResolver? = nil, timerResolver: AdaptyUITimerResolver? = nil,
    assetsResolver: AdaptyUIAssetsResolver? = nil, systemRequestsHandler: AdaptyUISystemRequestsHandler? = nil
  ) async throws -> FlowConfiguration {
    try await configuration(
      flow, locale: locale, loadTimeout: loadTimeout, products: products,
      resolvers: .init(
        observerMode: observerModeResolver, tags: tagResolver, timers: timerResolver, assets: assetsResolver,
        systemRequests: systemRequestsHandler))
  }

  /// `getFlowConfiguration` with a completion handler (as Adapty 4.x: no locale, no assets
  /// resolver, `loadTimeout` 5 s by default).
  public static func getFlowConfiguration(
    forFlow flow: AdaptyFlow, loadTimeout: TimeInterval = 5.0, products: [AdaptyPaywallProduct]? = nil,
    observerModeResolver: AdaptyObserverModeResolver? = nil, tagResolver: AdaptyUITagResolver? = nil,
    timerResolver: AdaptyUITimerResolver? = nil, systemRequestsHandler: AdaptyUISystemRequestsHandler? = nil,
    _ completion: @escaping AdaptyResultCompletion<FlowConfiguration>
  ) {
    let resolvers = PaywallConfiguration.Resolvers(
      observerMode: observerModeResolver, tags: tagResolver, timers: timerResolver,
      systemRequests: systemRequestsHandler)
    AdaptyCallbacks.run(completion) { () async throws(AdaptyError) in
      do {
        return try await configuration(flow, loadTimeout: loadTimeout, products: products, resolvers: resolvers)
      } catch {
        throw AdaptyError.wrapping(error)
      }
    }
  }

  /// The 4.x name of `PaywallConfiguration`.
  public typealias FlowConfiguration = PaywallConfiguration

  private static func configuration(
    _ flow: AdaptyFlow, locale: String? = nil, loadTimeout: TimeInterval?, products: [AdaptyPaywallProduct]?,
    resolvers: PaywallConfiguration.Resolvers
  ) async throws -> PaywallConfiguration {
    guard activation.withLock({ $0 }) else { throw AdaptyUIError.adaptyUINotActivated }
    let host = try await AdaptyUIHost.activated()
    return try await PaywallConfiguration.load(
      flow: flow, products: products, loadTimeout: loadTimeout, locale: locale, host: host, commerce: .live(host),
      resolvers: resolvers)
  }

  /// Forgets the activation (tests).
  static func reset() { activation.withLock { $0 = false } }
}

extension AdaptyError {
  /// An error for a completion handler: an `AdaptyError` as it is, an `AdaptyUIError` as
  /// `wrongParam` naming it (its code stays in the message).
  static func wrapping(_ error: any Error) -> AdaptyError {
    if let error = error as? AdaptyError { return error }
    if let error = error as? AdaptyUIError { return AdaptyError(.wrongParam, "\(error) (code \(error.errorCode))") }
    return AdaptyError(.unknown, "\(error)")
  }
}
