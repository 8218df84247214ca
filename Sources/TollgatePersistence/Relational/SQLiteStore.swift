import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The embedded default store: one SQLite file in WAL mode, a small pool of connections
/// (readers run in parallel, writers take turns through `BEGIN IMMEDIATE`).
public final class SQLiteStore: RelationalStore {
  let pool: ConnectionPool
  let relaxedPool: ConnectionPool
  public let profileChanges = ProfileChangeObservers()
  /// One process owns the file: there is no other instance to hear.
  public var announcementConninfo: String? { nil }
  /// One file, one table of events: old rows are deleted in batches.
  var eventMonths: EventMonths? { nil }
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

  /// Opens (creating if needed) the database at `path` and brings its schema up to date.
  /// One process owns the file, so a `CachedStore` around it sees every change.
  public init(path: String, connections: Int = 4) throws {
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
  }

  private static func migrate(_ connection: SQLiteConnection) throws {
    try connection.execute(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
    )
    for migration in Migrations.sqlite {
      let version = migration.version
      try connection.transaction {
        // Checked inside the write lock, so two processes starting together apply a step once.
        let done = try connection.query(
          "SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(version)])
        guard done.isEmpty else { return }
        try connection.execute(migration.sql)
        if migration.rebuildsRollups { try rebuildAll(connection) }
        try connection.query(
          "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
          [.integer(version), .real(Date().timeIntervalSince1970)])
      }
    }
  }
}

extension SQLiteStore {
  /// Writes a consistent copy of the database to `path` while the server runs (SQLite's
  /// online backup API), checks it, and only then gives it its name: a failed backup never
  /// leaves a file that looks complete. Refuses to overwrite.
  public static func backup(database: String, to path: String) throws {
    guard !FileManager.default.fileExists(atPath: path) else {
      throw StoreError.database("\(path) exists already; choose a new file")
    }
    guard FileManager.default.fileExists(atPath: database) else {
      throw StoreError.database("no database at \(database)")
    }
    try copy(database, to: path, checked: true)
  }

  /// Copies a database with the backup API into `path + ".partial"`, checks it if asked, and
  /// only then gives it its name; a failure leaves nothing behind.
  private static func copy(_ source: String, to path: String, checked: Bool) throws {
    let partial = path + ".partial"
    try? FileManager.default.removeItem(atPath: partial)
    do {
      let connection = try SQLiteConnection(path: source)
      defer { connection.close() }
      try connection.backup(to: partial)
      if checked { try check(partial) }
      try FileManager.default.moveItem(atPath: partial, toPath: path)
    } catch {
      try? FileManager.default.removeItem(atPath: partial)
      throw error
    }
  }

  /// Puts a backup in place as the database at `path`, which must not exist yet (an empty
  /// data directory); the backup is checked first, then brought up to this version's schema.
  public static func restore(from backup: String, to path: String) throws {
    for file in [path, path + "-wal"] where FileManager.default.fileExists(atPath: file) {
      throw StoreError.database("\(file) exists; restore only into an empty data directory")
    }
    try check(backup)
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try copy(backup, to: path, checked: false)
    // Migrations for backups taken by an older version.
    try SQLiteStore(path: path, connections: 1).close()
  }

  /// SQLite's own integrity check, and the marks of a Tollgate database.
  static func check(_ path: String) throws {
    let connection = try SQLiteConnection(path: path)
    defer { connection.close() }
    let verdict = try connection.query("PRAGMA integrity_check").first?.decode("integrity_check", as: String.self)
    guard verdict == "ok" else { throw StoreError.database("\(path) is damaged: \(verdict ?? "no answer")") }
    guard
      try !connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        .isEmpty
    else { throw StoreError.database("\(path) is not a Tollgate database") }
  }

  /// Caps the database at `pages` pages on every connection (nil lifts the cap): tests
  /// simulate a full disk with it.
  func limitPages(_ pages: Int?) throws {
    let sql = "PRAGMA max_page_count = \(pages ?? 4_294_967_294)"
    try pool.each { try $0.execute(sql) }
    try relaxedPool.each { try $0.execute(sql) }
  }
}
