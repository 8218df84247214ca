import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Deletes raw flow views older than the retention (`--events-retention-days`, default 400), a
/// batch at a time on a background pass, never on a request. Rollups keep every figure and each
/// profile's first view is kept apart, so reports do not change; first-launch reports (one per
/// profile), purchases, transactions and profiles are never expired.
public final class EventRetention: Sendable {
  /// The default retention, in days.
  public static let defaultDays = 400
  /// Rows per batch: one short transaction each, so writers never wait long.
  static let batch = 1_000

  let eventLog: any EventRepository
  let days: Int
  let time: any TimeSource
  let logger: Logger
  private let loop = BackgroundPasses()

  /// A retention of `days` (at least 1).
  init(eventLog: any EventRepository, days: Int, time: any TimeSource, logger: Logger) {
    self.eventLog = eventLog
    self.days = max(1, days)
    self.time = time
    self.logger = logger
    loop.bind { [self] in pass() }
  }

  /// The time before which raw views go.
  var cutoff: Date { time.now().addingTimeInterval(-Double(days) * 86_400) }

  /// One batch; the loop repeats while a batch found rows.
  func pass() -> Int {
    do {
      // Whole months first (PostgreSQL drops their partitions), then what is left row by row.
      let cutoff = cutoff
      let dropped = try eventLog.dropExpiredEventMonths(before: cutoff)
      let deleted = try eventLog.expireEvents(before: cutoff, limit: Self.batch)
      if dropped + deleted > 0 {
        logger.debug("events retention: \(dropped + deleted) raw flow views older than \(days) days deleted")
      }
      return dropped + deleted
    } catch {
      logger.warn("events retention: \(error)")
      return 0
    }
  }

  /// Passes every `interval` seconds (and at once after `kick()`).
  public func start(interval: TimeInterval = 3_600) { loop.start(interval: interval) }

  /// Runs passes now until nothing is older than the retention; passes never overlap.
  public func kick() { loop.kick() }

  /// Stops the timer and waits for a running pass.
  public func stop() { loop.stop() }
}
