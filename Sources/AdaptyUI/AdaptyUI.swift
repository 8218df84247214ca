import Adapty
import Foundation
import Synchronization
import TollgateAPI

/// Draws the paywalls designed in the console (`flows[].paywall`): get a configuration for a
/// fetched flow, then present it with `AdaptyUI.paywallController(with:delegate:)` (UIKit) or
/// the `.paywall(isPresented:paywallConfiguration:…)` modifier (SwiftUI).
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

  /// The disk cache of paywall images.
  public struct MediaCacheConfiguration: Sendable {
    /// The most bytes of images kept on disk; the oldest go first.
    public let diskStorageSizeLimit: UInt

    /// A cache limit.
    public init(diskStorageSizeLimit: UInt) {
      self.diskStorageSizeLimit = diskStorageSizeLimit
    }
  }

  /// Where a link opens (`AdaptyWebPresentation`).
  public typealias WebPresentation = AdaptyWebPresentation

  /// What the user asked for on the paywall.
  public enum Action: Sendable, Hashable {
    /// The close button.
    case close
    /// A link (terms, privacy).
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
    if let limit = configuration.mediaCacheConfiguration?.diskStorageSizeLimit {
      await host.limitImageCache(bytes: Int(limit))
    }
  }

  /// The configuration to present `paywall` with: its document resolved against `products`
  /// (fetched from the store when nil) and its images (from the disk cache, the fallback file
  /// or the server within `loadTimeout` seconds; one that cannot be had is left out, never a
  /// failure). A document newer than this SDK is replaced by the fallback file's; throws
  /// `AdaptyUIError` when there is none it can draw, `AdaptyError` when the products cannot
  /// be had.
  public static func getPaywallConfiguration(
    forPaywall paywall: AdaptyFlow, loadTimeout: TimeInterval? = nil, products: [AdaptyPaywallProduct]? = nil
  ) async throws -> PaywallConfiguration {
    guard activation.withLock({ $0 }) else { throw AdaptyUIError.adaptyUINotActivated }
    let host = try await AdaptyUIHost.activated()
    return try await PaywallConfiguration.load(
      flow: paywall, products: products, loadTimeout: loadTimeout, host: host, commerce: .live(host))
  }

  /// The 4.x name of `getPaywallConfiguration(forPaywall:loadTimeout:products:)`.
  public static func getFlowConfiguration(
    forFlow flow: AdaptyFlow, loadTimeout: TimeInterval? = nil, products: [AdaptyFlowProduct]? = nil
  ) async throws -> FlowConfiguration {
    try await getPaywallConfiguration(forPaywall: flow, loadTimeout: loadTimeout, products: products)
  }

  /// The 4.x name of `PaywallConfiguration`.
  public typealias FlowConfiguration = PaywallConfiguration

  /// Forgets the activation (tests).
  static func reset() { activation.withLock { $0 = false } }
}
