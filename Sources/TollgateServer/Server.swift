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
  public init(
    store: any Store, settings: HTTPServer.Settings, time: any TimeSource = SystemTimeSource(),
    logger: Logger = Logger()
  ) {
    let service = Service(store: store, time: time, logger: logger)
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
    return port
  }

  /// Stops accepting, finishes requests in flight, then closes the store.
  public func stop() {
    refresher.withLock { timer in
      timer?.cancel()
      timer = nil
    }
    http.shutdown()
    store.close()
  }
}
