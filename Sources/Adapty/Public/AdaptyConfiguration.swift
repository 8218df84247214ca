import Foundation

/// How the SDK runs: which server, which key, where it keeps its files.
public struct AdaptyConfiguration: Sendable {
  /// Tollgate's SDK routes answer under this base by default: a server on this machine.
  public static let defaultBackendBaseUrl = URL(string: "http://127.0.0.1:8080")!

  let apiKey: String
  let customerUserId: String?
  let backendBaseUrl: URL
  let logLevel: AdaptyLog.Level?
  let storageDirectory: URL
  let storeMessagesHandling: AdaptyStoreMessagesHandling
  let callbackDispatchQueue: DispatchQueue?
  /// The app buys and finishes transactions itself (`reportTransaction` sends them).
  let observerMode: Bool
  let dependencies: Dependencies

  /// Starts a configuration with the app's public SDK key (`tg_pub_…`).
  public static func builder(withAPIKey apiKey: String) -> Builder { Builder(apiKey: apiKey) }

  /// Collects options; every `with` returns the builder so calls chain.
  public final class Builder {
    var apiKey: String
    var customerUserId: String?
    var backendBaseUrl = AdaptyConfiguration.defaultBackendBaseUrl
    var logLevel: AdaptyLog.Level?
    var storageDirectory: URL?
    var storeMessagesHandling = AdaptyStoreMessagesHandling.auto
    var callbackDispatchQueue: DispatchQueue?
    var observerMode = false
    var dependencies = Dependencies()

    init(apiKey: String) { self.apiKey = apiKey }

    /// The app's own user id for this install's profile; an empty one is none.
    @discardableResult
    public func with(customerUserId: String?) -> Builder {
      self.customerUserId = customerUserId?.isEmpty == true ? nil : customerUserId
      return self
    }

    /// Your Tollgate server, e.g. `https://paywalls.example.com`.
    @discardableResult
    public func with(backendBaseUrl: URL) -> Builder {
      self.backendBaseUrl = backendBaseUrl
      return self
    }

    /// Sets `Adapty.logLevel` at activation.
    @discardableResult
    public func with(logLevel: AdaptyLog.Level) -> Builder {
      self.logLevel = logLevel
      return self
    }

    /// Where the SDK keeps its files (profile, cached flows, pending events). Default:
    /// Application Support/Adapty on Apple platforms, `$XDG_DATA_HOME/<program>/adapty`
    /// (or `~/.local/share/…`) on Linux.
    @discardableResult
    public func with(storageDirectory: URL) -> Builder {
      self.storageDirectory = storageDirectory
      return self
    }

    /// Where the completion handlers of the callback forms run (default: the main queue).
    @discardableResult
    public func with(callbackDispatchQueue queue: DispatchQueue) -> Builder {
      callbackDispatchQueue = queue
      return self
    }

    /// Observer mode: the app buys, restores and finishes transactions with its own StoreKit
    /// code and reports them (`Adapty.reportTransaction`); the SDK makes no purchase
    /// (`makePurchase` throws `cantMakePayments`), listens to no transaction updates and
    /// finishes nothing. `AdaptyUI` hands its buttons to an `AdaptyObserverModeResolver`.
    @discardableResult
    public func with(observerMode mode: Bool) -> Builder {
      observerMode = mode
      return self
    }

    /// Accepted for Adapty's shape: Tollgate's SDK never reads the advertising identifier
    /// (IDFA), so there is nothing to turn off.
    @discardableResult
    public func with(idfaCollectionDisabled value: Bool) -> Builder { self }

    /// Accepted for Adapty's shape: the SDK sends no IP address, and the server keeps none
    /// (it uses the connection's address for rate limits in memory only).
    @discardableResult
    public func with(ipAddressCollectionDisabled value: Bool) -> Builder { self }

    /// The finished configuration.
    public func build() -> AdaptyConfiguration {
      AdaptyConfiguration(
        apiKey: apiKey, customerUserId: customerUserId, backendBaseUrl: backendBaseUrl, logLevel: logLevel,
        storageDirectory: storageDirectory ?? StorageLocation.defaultDirectory(),
        storeMessagesHandling: storeMessagesHandling, callbackDispatchQueue: callbackDispatchQueue,
        observerMode: observerMode, dependencies: dependencies)
    }
  }
}

/// The collaborators the SDK talks to; tests and the Linux demo replace them.
struct Dependencies: Sendable {
  var transport: (any HTTPTransport)?
  var clock: any SDKClock = SystemClock()
  var installInfo: @Sendable () -> InstallInfo = { InstallInfo.current() }
  /// nil: StoreKit 2 on Apple platforms, nothing elsewhere.
  var purchaseSource: (any AdaptyPurchaseSource)?
  /// nil: StoreKit's `Message.messages` on iOS 16+, nothing elsewhere.
  var storeMessageSource: (any AdaptyStoreMessageSource)?
  /// Whether activation starts attribution collection in the background (tests that drive
  /// the collector themselves turn it off).
  var collectsAttributionAtLaunch = true
  /// nil: the platform's default (AdServices on iOS); `.some(nil)`: no collection.
  var attributionTokenProvider: (any AdaptyAttributionTokenProvider)?? = nil

  var resolvedTokenProvider: (any AdaptyAttributionTokenProvider)? {
    attributionTokenProvider ?? AttributionTokenProviders.platformDefault
  }
}
