import Foundation
import TollgateAPI

/// The embedded default store: one SQLite file in WAL mode, a small pool of connections
/// (readers run in parallel, writers take turns through `BEGIN IMMEDIATE`).
public final class SQLiteStore: RelationalStore {
  let pool: ConnectionPool
  let relaxedPool: ConnectionPool
  let dialect = SQLDialect(
    lockRow: "",
    relaxTransaction: nil,
    skipLocked: "",
    claimJobs: """
      UPDATE attribution_jobs SET next_attempt_at = ?
      WHERE rowid IN (SELECT rowid FROM attribution_jobs WHERE status = 'pending' AND next_attempt_at <= ?
                      ORDER BY next_attempt_at LIMIT ?)
      RETURNING \(SQLColumns.job)
      """)

  /// Profiles kept in memory; one process owns the file, so every change passes through it.
  public let profileCache: ProfileCache?
  let assignmentWriter: AssignmentWriter?

  /// Opens (creating if needed) the database at `path` and brings its schema up to date;
  /// `profileCache` profiles are kept in memory (0: none).
  public init(path: String, connections: Int = 4, profileCache: Int = 0) throws {
    self.profileCache = profileCache > 0 ? ProfileCache(capacity: profileCache) : nil
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let opened = try (0..<max(1, connections)).map { _ in try SQLiteConnection(path: path) }
    try Self.migrate(opened[0])
    pool = ConnectionPool(
      opened,
      finish: { connection in
        try? connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
      })
    relaxedPool = ConnectionPool(try (0..<2).map { _ in try SQLiteConnection(path: path, relaxed: true) })
    assignmentWriter = Self.makeAssignmentWriter(self.profileCache)
    attachAssignmentWriter()
  }

  private static func migrate(_ connection: SQLiteConnection) throws {
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    for (index, step) in Migrations.sqlite.enumerated() {
      let version = Int64(index + 1)
      try connection.transaction {
        // Checked inside the write lock, so two processes starting together apply a step once.
        let done = try connection.query(
          "SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(version)])
        guard done.isEmpty else { return }
        try connection.execute(step)
        try connection.query(
          "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
          [.integer(version), .real(Date().timeIntervalSince1970)])
      }
    }
  }
}
