import Dispatch
import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// A running Tollgate: the service on libmicrohttpd over a store, plus the once-a-second
/// config refresh that picks up imports made by other processes.
public final class Server: Sendable {
  /// The service answering requests.
  public let service: Service
  /// The database (and profile cache) it owns; closed on `stop()`.
  public let store: OpenedStore
  private let http: HTTPServer
  private let refresher: Mutex<(any DispatchSourceTimer)?>
  private let logger: Logger
  private let readReplica: ReadReplica?

  /// How often pending tokens are looked at (nil: only when a token arrives).
  private let attributionInterval: TimeInterval?
  /// How often the webhook outbox is looked at (nil: tests drive the worker).
  private let webhookInterval: TimeInterval?
  /// How often due spend imports are looked for (nil: tests drive the importer).
  private let spendImportInterval: TimeInterval?
  /// How often due notification recoveries are looked for (nil: tests drive them).
  private let recoveryInterval: TimeInterval?
  /// How often old flow views are looked for (nil: never, tests drive it).
  private let eventsRetentionInterval: TimeInterval?
  private let peopleCleanupInterval: TimeInterval?

  /// Wires the service to an HTTP server; nothing listens until `start()`.
  public init(store: OpenedStore, configuration: ServerConfiguration) {
    let service = Service(store: store, configuration: configuration)
    let logger = configuration.logger
    self.webhookInterval = configuration.webhookInterval
    self.attributionInterval = configuration.attributionInterval
    self.spendImportInterval = configuration.spendImportInterval
    self.recoveryInterval = configuration.recoveryInterval
    self.eventsRetentionInterval = configuration.eventsRetentionInterval
    self.peopleCleanupInterval = configuration.peopleCleanupInterval
    self.service = service
    self.store = store
    self.readReplica = configuration.readReplica

    self.logger = logger
    var settings = configuration.http
    settings.largeBodyLimits[AssetsController.uploadPath] = ImageAsset.maximumBytes
    settings.streamedBodies += service.streamedRoutes
    self.http = HTTPServer(settings: settings, responder: service.responder)
    // Configs are re-checked once a second, and at once (within a 50 ms tick) when another
    // instance announces a change over PostgreSQL.
    let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
    timer.schedule(deadline: .now() + 0.05, repeating: 0.05)
    let ticks = Mutex((count: 0, announced: store.cache?.profileCache.configChanges ?? 0))
    timer.setEventHandler {
      let announced = store.cache?.profileCache.configChanges ?? 0
      let due = ticks.withLock { ticks -> Bool in
        ticks.count += 1
        defer { ticks.announced = announced }
        return ticks.count % 20 == 0 || announced != ticks.announced
      }
      guard due else { return }
      do { try service.refreshConfigs() } catch { logger.warn("config refresh: \(error)") }
    }
    refresher = Mutex(timer)
    // Announced over PostgreSQL: refresh at once rather than at the next tick.
    store.cache?.profileCache.onConfigAnnounced {
      DispatchQueue.global().async {
        do { try service.refreshConfigs() } catch { logger.warn("config refresh: \(error)") }
      }
    }
  }

  /// Starts listening; returns the bound port.
  @discardableResult
  public func start() throws -> UInt16 {
    let port = try http.start()
    refresher.withLock { $0?.resume() }
    readReplica?.start()
    // The first requests after a restart find their profiles in memory.
    if let cache = store.cache, cache.profileCache.capacity > 0 {
      let logger = logger
      let service = service
      cache.profileCache.warming = true
      DispatchQueue.global(qos: .utility).async {
        defer { cache.profileCache.warming = false }
        let started = Date()
        do {
          let read = try cache.warmProfileCache(pageSize: 2_000) { service.targetingSchema(appId: $0) }
          logger.info(
            "profile cache: \(read) profiles read in \(Int(Date().timeIntervalSince(started) * 1000)) ms")
        } catch {
          logger.warn("profile cache: warming stopped: \(error)")
        }
      }
    }
    if let attributionInterval {
      service.attribution.start(interval: attributionInterval)
      // Jobs left pending by an earlier process resume at once.
      service.attribution.kick()
    }
    if let webhookInterval {
      service.webhooks.start(interval: webhookInterval)
      service.webhooks.kick()
    }
    if let spendImportInterval {
      service.spendImporter.start(interval: spendImportInterval)
      // A run an earlier process left unfinished resumes once its lease runs out.
      service.spendImporter.kick()
    }
    if let recoveryInterval {
      service.recovery.start(interval: recoveryInterval)
      service.recovery.kick()
      service.refundAnswers.start(interval: recoveryInterval)
      service.refundAnswers.kick()
      service.historyImporter.start(interval: recoveryInterval)
      service.historyImporter.kick()
    }
    if let retention = service.eventRetention, let interval = eventsRetentionInterval {
      retention.start(interval: interval)
      retention.kick()
    }
    if let peopleCleanupInterval {
      service.peopleCleanup.start(interval: peopleCleanupInterval)
      service.peopleCleanup.kick()
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
    service.spendImporter.stop()
    service.recovery.stop()
    service.refundAnswers.stop()
    service.historyImporter.stop()
    service.eventRetention?.stop()
    service.peopleCleanup.stop()
    service.finishWaits()
    http.shutdown()
    readReplica?.close()
    store.close()
  }
}
