import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The store for more than one machine: several Tollgate servers share one PostgreSQL.
/// Same behaviour as `SQLiteStore` (one conformance suite runs against both); rows a
/// transaction updates are locked (`FOR UPDATE`), pending attribution jobs are claimed with
/// `FOR UPDATE SKIP LOCKED` so each is processed by one instance, and migrations run under
/// an advisory lock so servers starting together do not race.
public final class PostgresStore: RelationalStore {
  let pool: ConnectionPool
  var relaxedPool: ConnectionPool { pool }
  public let profileChanges = ProfileChangeObservers()
  /// Other instances announce their changes here.
  public var announcementConninfo: String? { conninfo }
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
    planWithValues: "SET LOCAL plan_cache_mode = force_custom_plan")

  /// How to connect (with the schema's setup left to each connection): a `CachedStore`
  /// listens for other instances' profile changes on a connection of its own.
  let conninfo: String

  /// Connects to `url` (`postgres://user:password@host:port/database`). `schema` keeps the
  /// tables in their own schema (tests give each store one); it must be a plain identifier.
  /// `migrates: false` for a read-only standby (a streaming replica takes the primary's schema).
  public init(url: String, connections: Int = 8, schema: String? = nil, migrates: Bool = true) throws {
    var setup = ["SET client_min_messages = warning", "SET statement_timeout = 5000", "SET lock_timeout = 5000"]
    if let schema {
      guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
        throw StoreError.database("schema names are lower-case identifiers, not \(schema)")
      }
      setup.insert("CREATE SCHEMA IF NOT EXISTS \(schema)", at: 1)
      setup.append("SET search_path TO \(schema)")
    }
    let conninfo = url + (url.contains("?") ? "&" : "?") + "connect_timeout=3&application_name=tollgate"
    self.conninfo = conninfo
    let first = try PostgresConnection(conninfo: conninfo, setup: setup)
    if migrates { try Self.migrate(first) }
    let rest = try (1..<max(1, connections)).map { _ in try PostgresConnection(conninfo: conninfo, setup: setup) }
    pool = ConnectionPool([first] + rest, waitLimit: 5)
  }

  private static func migrate(_ connection: PostgresConnection) throws {
    // One migrator per schema at a time, across every server process.
    try connection.query("SELECT pg_advisory_lock(hashtext(current_schema()))")
    defer { _ = try? connection.query("SELECT pg_advisory_unlock(hashtext(current_schema()))") }
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
    for migration in Migrations.postgres {
      let version = migration.version
      try connection.transaction {
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
