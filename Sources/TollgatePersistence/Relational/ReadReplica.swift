import Foundation
import Synchronization
import TollgateDomain
import TollgateSupport

/// Reports and exports read from a PostgreSQL streaming replica (`--database-read-url`), so a
/// heavy report never takes the primary's time; the primary answers instead while the replica is
/// down or further behind than `Policy.maxLag`. How far behind is measured in the background
/// every `checkInterval` (`start()`; `refresh()` measures at once): the primary's WAL position
/// against the replica's replay position, and the time of the last transaction replayed. A
/// report only reads the last measurement, so a replica that is slow to answer or to connect
/// to never holds a request.
public final class ReadReplica: Sendable {
  /// When the replica is trusted.
  public struct Policy: Sendable {
    /// The most a report may lag the primary.
    public var maxLag: TimeInterval
    /// How often the lag is measured.
    public var checkInterval: TimeInterval

    /// The defaults: 30 s of lag, measured every second.
    public init(maxLag: TimeInterval = 30, checkInterval: TimeInterval = 1) {
      self.maxLag = maxLag
      self.checkInterval = checkInterval
    }
  }

  /// What the last measurement said.
  public struct Health: Sendable, Hashable {
    /// Reports read on the replica.
    public var usable: Bool
    /// What the replica holds is the primary's state as of then.
    public var asOf: Date?
    /// Why it is not used.
    public var problem: String?
    /// It had replayed everything the primary had written when measured.
    public var caughtUp = false
  }

  let url: String
  let primary: PostgresStore
  let policy: Policy
  let time: any TimeSource
  let logger: Logger
  private let store = Mutex<PostgresStore?>(nil)
  /// The last measurement; nil until the first (reports read on the primary meanwhile).
  private let measured = Mutex<Health?>(nil)
  private let passes = BackgroundPasses()

  /// A replica at `url` beside `primary`; nothing is connected until the first measurement.
  public init(url: String, primary: PostgresStore, policy: Policy = Policy(), time: any TimeSource, logger: Logger) {
    self.url = url
    self.primary = primary
    self.policy = policy
    self.time = time
    self.logger = logger
    passes.bind { [weak self] in
      self?.refresh()
      return 0
    }
  }

  /// Measures every `checkInterval` in the background until `close()`.
  public func start() { passes.start(interval: policy.checkInterval) }

  /// Measures now and keeps the result for the reports that follow; returns it.
  @discardableResult
  public func refresh() -> Health {
    let health = measure()
    let before = measured.withLock { state -> Health? in
      defer { state = health }
      return state
    }
    if before?.usable != health.usable {
      if health.usable {
        logger.info("read replica: reports read there again")
      } else {
        logger.warn("read replica: reports read on the primary (\(health.problem ?? "unusable"))")
      }
    }
    return health
  }

  /// The replica's store and how fresh it is, or nil when reports must go to the primary.
  func current() -> (store: PostgresStore, asOf: Date)? {
    guard let health = measured.withLock({ $0 }), health.usable, let asOf = health.asOf,
      let replica = store.withLock({ $0 })
    else { return nil }
    return (replica, asOf)
  }

  /// Notes that a read on the replica failed: the primary answers until the next measurement.
  func failed(_ error: any Error) {
    measured.withLock { $0 = Health(usable: false, asOf: nil, problem: "a read failed: \(error)") }
    logger.warn("read replica: a report read failed there and was answered by the primary: \(error)")
  }

  /// Measures now (connecting first when needed).
  public func measure() -> Health {
    do {
      let replica: PostgresStore
      if let open = store.withLock({ $0 }) {
        replica = open
      } else {
        replica = try PostgresStore(url: url, connections: 2, migrates: false)
        store.withLock { $0 = replica }
      }
      let position = try primary.with { db in
        try db.query("SELECT pg_current_wal_lsn()::text AS lsn").first?.decode("lsn", as: String.self)
      }
      let readAt = time.now()
      guard let position,
        let row = try replica.with({ db in
          try db.query(
            """
            SELECT pg_is_in_recovery()::int AS standby,
              pg_wal_lsn_diff(?::pg_lsn, pg_last_wal_replay_lsn())::float8 AS behind,
              extract(epoch FROM pg_last_xact_replay_timestamp())::float8 AS replayed
            """, [.text(position)]
          ).first
        })
      else { return Health(usable: false, asOf: nil, problem: "no WAL position") }
      let standby = try row.decode("standby", as: Int64.self) == 1
      let behind = try row.decode("behind", as: Double?.self)
      let replayed = try row.decode("replayed", as: Double?.self).map(Date.init(timeIntervalSince1970:))
      // Not a standby (promoted, or the primary itself), or caught up with the primary's
      // position read just before: as fresh as that read.
      guard standby, let behind, behind > 0 else {
        return Health(usable: true, asOf: readAt, problem: nil, caughtUp: true)
      }
      guard let replayed else { return Health(usable: false, asOf: nil, problem: "nothing replayed yet") }
      let lag = readAt.timeIntervalSince(replayed)
      guard lag <= policy.maxLag else {
        return Health(
          usable: false, asOf: replayed,
          problem: "\(Int(lag)) s behind (the limit is \(Int(policy.maxLag)) s)")
      }
      return Health(usable: true, asOf: replayed, problem: nil)
    } catch {
      return Health(usable: false, asOf: nil, problem: "\(error)")
    }
  }

  /// Stops measuring and closes the replica's connections.
  public func close() {
    passes.stop()
    store.withLock { $0 }?.close()
  }
}

/// Where reports read: the primary, or a replica while it is usable. `read` runs a report's
/// queries on one of them and notes for the answer how fresh they were (`Freshness.noting`).
public final class ReportSource: Sendable {
  /// How fresh the data a report was made from is.
  public struct Freshness: Sendable, Hashable {
    /// The state of the primary the data reflects.
    public var asOf: Date
    /// Read on the replica (false: the primary).
    public var replica: Bool
  }

  /// Collects what the reads of one answer found.
  final class Note: @unchecked Sendable {
    var freshness: Freshness?
  }
  @TaskLocal static var note: Note?

  let analytics: any AnalyticsRepository
  let spend: any AppleAdsSpendRepository
  let replica: ReadReplica?
  let time: any TimeSource

  /// Reports read `analytics` and `spend` (the primary), or `replica`'s when given and usable.
  public init(
    analytics: any AnalyticsRepository, spend: any AppleAdsSpendRepository, replica: ReadReplica?,
    time: any TimeSource
  ) {
    self.analytics = analytics
    self.spend = spend
    self.replica = replica
    self.time = time
  }

  /// Runs a report's reads on the replica when usable (on the primary when the replica fails
  /// mid-read), else on the primary.
  public func read<T>(_ body: (any AnalyticsRepository, any AppleAdsSpendRepository) throws -> T) throws -> T {
    if let replica, let (store, asOf) = replica.current() {
      do {
        let value = try body(store, store)
        Self.note?.freshness = Freshness(asOf: min(asOf, Self.note?.freshness?.asOf ?? asOf), replica: true)
        return value
      } catch {
        // Whatever failed there (a lost connection, a query cancelled by replay) is asked again
        // of the primary, which answers or throws the same error itself.
        replica.failed(error)
      }
    }
    let value = try body(analytics, spend)
    if replica != nil, Self.note?.freshness == nil {
      Self.note?.freshness = Freshness(asOf: time.now(), replica: false)
    }
    return value
  }

  /// `body`'s answer and the freshness of the reports it read (nil without a replica: always live).
  public func noting<T>(_ body: () throws -> T) rethrows -> (T, Freshness?) {
    let note = Note()
    let value = try Self.$note.withValue(note) { try body() }
    return (value, note.freshness)
  }
}
