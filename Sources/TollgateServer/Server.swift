import Dispatch
import Foundation
import Synchronization

/// A running Tollgate: the service on libmicrohttpd over a store, plus the once-a-second
/// config refresh that picks up imports made by other processes.
public final class Server: Sendable {
  /// The service answering requests.
  public let service: Service
  /// The store it owns; closed on `stop()`.
  public let store: any Store
  private let http: HTTPServer
  private let refresher: Mutex<(any DispatchSourceTimer)?>
  private let logger: Logger

  /// Wires the service to an HTTP server; nothing listens until `start()`.
  private let attributionInterval: TimeInterval?
  /// How often the webhook outbox is looked at (nil: tests drive the worker).
  private let webhookInterval: TimeInterval?

  /// Wires the service to an HTTP server. `apple` resolves Apple Ads tokens (Apple's API,
  /// or the stand-in); `attributionInterval` is how often pending tokens are retried (nil:
  /// only when a token arrives, for tests that drive the worker themselves).
  public init(
    store: any Store, settings: HTTPServer.Settings, time: any TimeSource = SystemTimeSource(),
    logger: Logger = Logger(), apple: any AppleAdsResolving = AppleAdsClient(),
    attributionPolicy: AttributionPolicy = AttributionPolicy(), attributionInterval: TimeInterval? = 0.5,
    attributionBudget: TimeInterval = 1.5, appStoreVerifier: SignedDataVerifier = SignedDataVerifier(),
    secrets: SecretBox? = nil, webhookSender: any WebhookSending = URLSessionWebhookSender(),
    webhookInterval: TimeInterval? = 0.5
  ) {
    let service = Service(
      store: store, time: time, logger: logger, apple: apple, attributionPolicy: attributionPolicy,
      attributionBudget: attributionBudget, appStoreVerifier: appStoreVerifier, secrets: secrets,
      webhookSender: webhookSender)
    self.webhookInterval = webhookInterval
    self.attributionInterval = attributionInterval
    self.service = service
    self.store = store
    self.logger = logger
    self.http = HTTPServer(settings: settings) { service.handle($0) }
    let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    timer.schedule(deadline: .now() + 1, repeating: 1)
    timer.setEventHandler {
      do { try service.refreshConfigs() } catch { logger.warn("config refresh: \(error)") }
    }
    refresher = Mutex(timer)
  }

  /// Starts listening; returns the bound port.
  @discardableResult
  public func start() throws -> UInt16 {
    let port = try http.start()
    refresher.withLock { $0?.resume() }
    if let attributionInterval {
      service.attribution.start(interval: attributionInterval)
      // Jobs left pending by an earlier process resume at once.
      service.attribution.kick()
    }
    if let webhookInterval {
      service.webhooks.start(interval: webhookInterval)
      service.webhooks.kick()
    }
    return port
  }

  /// Stops accepting, answers long polls with what is known now, finishes requests in
  /// flight, then closes the store. Pending attribution jobs stay in the store.
  public func stop() {
    refresher.withLock { timer in
      timer?.cancel()
      timer = nil
    }
    service.attribution.stop()
    service.webhooks.stop()
    service.finishWaits()
    http.shutdown()
    store.close()
  }
}
