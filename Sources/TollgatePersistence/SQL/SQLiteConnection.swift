import CSQLite
import Foundation
import TollgateDomain
import TollgateSupport

/// One SQLite connection with a cache of prepared statements. Not shared: the pool hands
/// it to one thread at a time, which is why it is `@unchecked Sendable`.
final class SQLiteConnection: SQLConnection, @unchecked Sendable {
  private var handle: OpaquePointer?
  private var statements: [String: OpaquePointer] = [:]
  /// Statements kept prepared at most. Our SQL comes from a bounded set of texts, but one
  /// with a placeholder per id is a new text for each count; past the limit the cache starts
  /// over, so a long-lived connection's memory stays bounded.
  var statementLimit = SQLiteConnection.statementLimit
  static let statementLimit = 512
  /// How many statements are kept prepared now.
  var cachedStatements: Int { statements.count }
  /// Its busy handler's state (see `SQLiteWriteTurns`).
  private let waiter = SQLiteWriteTurns.Waiter()

  /// SQLite copies bound text and blobs (the C macro `SQLITE_TRANSIENT`).
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// `relaxed` connections commit without waiting for the disk (`synchronous=NORMAL`:
  /// durable across process crashes, not power loss); only writes that can be recomputed
  /// use them.
  init(path: String, relaxed: Bool = false) throws {
    let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
    var opened: OpaquePointer?
    let status = sqlite3_open_v2(path, &opened, flags, nil)
    handle = opened
    guard status == SQLITE_OK else {
      let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
      sqlite3_close(opened)
      handle = nil
      throw StoreError.database("\(path): \(message)")
    }
    _ = SQLiteWriteTurns.install(on: handle, waiter)
    try execute("PRAGMA journal_mode = WAL")
    // FULL: a commit is on disk before the caller hears about it, even on power loss.
    try execute(relaxed ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL")
    try execute("PRAGMA foreign_keys = ON")
    // Reads come from the mapped file (no copy per page); a large batch keeps its written
    // pages in memory instead of spilling them to the log before it commits.
    try execute("PRAGMA mmap_size = 2147418112")
    try execute("PRAGMA cache_size = -32768")
  }

  deinit { close() }

  func close() {
    for statement in statements.values { sqlite3_finalize(statement) }
    statements = [:]
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  /// Runs SQL without parameters or results (schema, pragmas, transaction control).
  func execute(_ sql: String) throws {
    var error: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &error)
    // Out of a transaction now (COMMIT, ROLLBACK, or a statement that was its own): the write
    // lock, if this connection held it, is free.
    if sqlite3_get_autocommit(handle) != 0 { SQLiteWriteTurns.shared.released() }
    guard status == SQLITE_OK else {
      let message = error.map { String(cString: $0) } ?? "unknown error"
      sqlite3_free(error)
      throw Self.error(status, message)
    }
  }

  /// Disk full and I/O errors are the storage's, not the request's: they become
  /// `storageUnavailable` (503); the write lock still taken after the busy handler's 10 s
  /// becomes `conflict` (503 `database_unavailable`, nothing written, send it again);
  /// everything else `database`.
  static func error(_ status: Int32, _ message: String) -> StoreError {
    switch status & 0xff {
    case SQLITE_FULL, SQLITE_IOERR: return .storageUnavailable(message)
    case SQLITE_BUSY: return .conflict("SQLite: \(message) (another writer held the lock for 10 s)")
    default: return .database(message)
    }
  }

  /// SQLite plans a statement when it is prepared and again when the statistics it used
  /// change: a lookup is an ordinary query.
  @discardableResult
  func lookup(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] { try query(sql, parameters) }

  /// Runs one prepared statement and returns its rows.
  @discardableResult
  func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [SQLRow] {
    let statement = try prepared(sql)
    defer {
      sqlite3_reset(statement)
      sqlite3_clear_bindings(statement)
    }
    for (index, value) in parameters.enumerated() {
      let position = Int32(index + 1)
      let status: Int32
      switch value {
      case .null: status = sqlite3_bind_null(statement, position)
      case .integer(let number): status = sqlite3_bind_int64(statement, position, number)
      case .real(let number): status = sqlite3_bind_double(statement, position, number)
      case .text(let text): status = sqlite3_bind_text(statement, position, text, -1, Self.transient)
      case .blob(let data):
        status = data.withUnsafeBytes {
          sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient)
        }
      }
      guard status == SQLITE_OK else { throw lastError() }
    }
    var rows: [SQLRow] = []
    let count = sqlite3_column_count(statement)
    let columns = SQLRow.Columns((0..<count).map { String(cString: sqlite3_column_name(statement, $0)) })
    defer {
      if sqlite3_stmt_readonly(statement) == 0, sqlite3_get_autocommit(handle) != 0 {
        SQLiteWriteTurns.shared.released()
      }
    }
    while true {
      let status = sqlite3_step(statement)
      if status == SQLITE_DONE { break }
      guard status == SQLITE_ROW else { throw lastError() }
      rows.append(SQLRow(columns: columns, values: (0..<count).map { column(statement, $0) }))
    }
    return rows
  }

  /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; rolls back when it throws.
  /// IMMEDIATE takes the write lock up front, so two writers wait instead of deadlocking.
  func transaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    do {
      let result = try body()
      try execute("COMMIT")
      return result
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
  }

  /// Rows changed by the last statement.
  var changes: Int { Int(sqlite3_changes(handle)) }

  private func prepared(_ sql: String) throws -> OpaquePointer {
    if let cached = statements[sql] { return cached }
    if statements.count >= statementLimit {
      // None is running: a query steps its statement to the end before it returns.
      for statement in statements.values { sqlite3_finalize(statement) }
      statements = [:]
    }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw lastError()
    }
    statements[sql] = statement
    return statement
  }

  private func column(_ statement: OpaquePointer, _ index: Int32) -> SQLValue {
    switch sqlite3_column_type(statement, index) {
    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
    case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
    case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, index)))
    case SQLITE_BLOB:
      let count = Int(sqlite3_column_bytes(statement, index))
      guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
      return .blob(Data(bytes: bytes, count: count))
    default: return .null
    }
  }

  private func lastError() -> StoreError {
    guard let handle else { return .database("closed") }
    return Self.error(sqlite3_extended_errcode(handle), String(cString: sqlite3_errmsg(handle)))
  }

  /// Copies the whole database into a new file with SQLite's online backup API: a
  /// consistent snapshot, taken while other connections and processes keep reading and
  /// writing (WAL mode lets writers go on meanwhile).
  func backup(to path: String) throws {
    var destination: OpaquePointer?
    let opened = sqlite3_open_v2(path, &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
    defer { sqlite3_close(destination) }
    guard opened == SQLITE_OK, let destination else {
      throw StoreError.database("\(path): \(destination.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open")")
    }
    guard let backup = sqlite3_backup_init(destination, "main", handle, "main") else {
      throw Self.error(sqlite3_extended_errcode(destination), "backup: \(String(cString: sqlite3_errmsg(destination)))")
    }
    var status: Int32
    repeat {
      status = sqlite3_backup_step(backup, -1)
      if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(50) }
    } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
    sqlite3_backup_finish(backup)
    guard status == SQLITE_DONE else {
      throw Self.error(status, "backup: \(String(cString: sqlite3_errstr(status)))")
    }
  }
}
