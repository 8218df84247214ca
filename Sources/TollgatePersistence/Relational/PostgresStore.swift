import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The store for more than one machine: several Tollgate servers share one PostgreSQL.
/// Same behaviour as `SQLiteStore` (one conformance suite runs against both); rows a
/// transaction updates are locked (`FOR UPDATE`), pending attribution jobs are claimed with
/// `FOR UPDATE SKIP LOCKED` so each is processed by one instance, and migrations run under
/// an advisory lock so servers starting together do not race.
///
/// Given a `listenURL`, the `url` is taken to lead through a transaction pooler (PgBouncer in
/// `pool_mode = transaction`): connections keep no session state (`PostgresConnection.Session`)
/// and other instances' announcements are heard on `listenURL`, a direct connection, since
/// `LISTEN` belongs to a session.
public final class PostgresStore: RelationalStore {
  let pool: ConnectionPool
  var relaxedPool: ConnectionPool { pool }
  public let profileChanges = ProfileChangeObservers()
  /// Other instances announce their changes here.
  public var announcementConninfo: String? { listenConninfo ?? conninfo }
  let eventMonths: EventMonths? = EventMonths()
  let dialect = SQLDialect(
    lockRow: " FOR UPDATE",
    relaxTransaction: "SET LOCAL synchronous_commit TO OFF",
    skipLocked: " FOR UPDATE SKIP LOCKED",
    announceChannel: ProfileAnnouncements.channel,
    claimJobs: """
      UPDATE attribution_jobs SET next_attempt_at = ?
      WHERE (app_id, profile_id, token_hash) IN (
        SELECT app_id, profile_id, token_hash FROM attribution_jobs
        WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?
        FOR UPDATE SKIP LOCKED)
      RETURNING \(SQLColumns.job)
      """,
    planWithValues: "SET LOCAL plan_cache_mode = force_custom_plan",
    analyzeAfterLoad: "ANALYZE imported_profiles, stats_aa_profiles",
    parallelWriters: 4)

  /// How to connect (with the schema's setup left to each connection): a `CachedStore`
  /// listens for other instances' profile changes on a connection of its own.
  let conninfo: String
  /// A direct connection's, when `conninfo` leads through a transaction pooler.
  let listenConninfo: String?

  /// The settings of every connection: quiet notices, and no statement or lock wait longer
  /// than 5 s (a stuck request answers instead of holding its connection).
  static let settings = ["client_min_messages = warning", "statement_timeout = 5000", "lock_timeout = 5000"]

  /// Connects to `url` (`postgres://user:password@host:port/database`). `schema` keeps the
  /// tables in their own schema (tests give each store one); it must be a plain identifier.
  /// `migrates: false` for a read-only standby (a streaming replica takes the primary's schema).
  /// `listenURL`: `url` leads through a transaction pooler, and this is a direct connection to
  /// the same database for `LISTEN` (no schema then: a pooled session cannot keep a search path).
  public init(
    url: String, connections: Int = 8, schema: String? = nil, migrates: Bool = true, listenURL: String? = nil
  ) throws {
    let session: PostgresConnection.Session
    if listenURL != nil {
      guard schema == nil else {
        throw StoreError.database("a schema cannot be kept through a transaction pooler: give the store a database")
      }
      session = .pooled(settings: Self.settings.map { "SET LOCAL " + $0 })
    } else {
      var settings = Self.settings.map { "SET " + $0 }
      if let schema {
        guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
          throw StoreError.database("schema names are lower-case identifiers, not \(schema)")
        }
        settings.insert("CREATE SCHEMA IF NOT EXISTS \(schema)", at: 1)
        settings.append("SET search_path TO \(schema)")
      }
      session = .direct(settings: settings)
    }
    func withOptions(_ url: String) -> String {
      // A URL's own connect_timeout is kept (a slow link to the database, a busy pooler).
      let options = (url.contains("connect_timeout=") ? [] : ["connect_timeout=3"]) + ["application_name=tollgate"]
      return url + (url.contains("?") ? "&" : "?") + options.joined(separator: "&")
    }
    let conninfo = withOptions(url)
    self.conninfo = conninfo
    listenConninfo = listenURL.map(withOptions)
    let first = try PostgresConnection(conninfo: conninfo, session: session)
    if migrates { try Self.migrate(first) }
    let rest = try (1..<max(1, connections)).map { _ in try PostgresConnection(conninfo: conninfo, session: session) }
    pool = ConnectionPool([first] + rest, waitLimit: 5)
  }

  /// Applies the migrations not yet applied, each in a transaction of its own holding a
  /// transaction-scoped advisory lock: one migrator per schema at a time across every server
  /// process, and nothing held past a transaction (a pooler may hand the next one to another
  /// server session).
  private static func migrate(_ connection: PostgresConnection) throws {
    let lock = "SELECT pg_advisory_xact_lock(hashtext(current_schema()))"
    try connection.transaction {
      try connection.query(lock)
      try connection.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"
      )
    }
    for migration in Migrations.postgres {
      let version = migration.version
      try connection.transaction {
        try connection.query(lock)
        guard try connection.query("SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(version)]).isEmpty
        else { return }
        try connection.execute(migration.sql)
        if migration.rebuildsRollups { try rebuildAll(connection) }
        try connection.query(
          "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
          [.integer(version), .real(Date().timeIntervalSince1970)])
      }
    }
  }
}
