import CLibPQ
import Foundation
import TollgateDomain
import TollgateSupport

/// One libpq connection with named prepared statements, cached per SQL text. Values are
/// always bound as parameters (`?` in our SQL becomes `$n`); nothing is spliced into SQL.
/// A lost connection is reset on next use; meanwhile calls fail with `unavailable`.
///
/// Through a transaction pooler (PgBouncer's `pool_mode = transaction`) the server behind the
/// connection may change after every transaction, so `Session.pooled` keeps nothing there:
/// statements go unnamed (parsed with their values each time), and the settings that a direct
/// connection sets once are set again at the start of each transaction (`SET LOCAL`).
final class PostgresConnection: SQLConnection, @unchecked Sendable {
  /// What the connection may keep on the server between transactions.
  enum Session: Sendable {
    /// A server session of its own: `settings` run once per connection.
    case direct(settings: [String])
    /// Behind a transaction pooler: `settings` (each a `SET LOCAL`) open every transaction.
    case pooled(settings: [String])
  }

  private var handle: OpaquePointer?
  private let conninfo: String
  private let session: Session
  private var prepared: [String: String] = [:]
  /// The `$n` form of each SQL text sent unnamed (pooled).
  private var numberedTexts: [String: String] = [:]
  /// Statements (or `$n` texts) kept at most; past the limit the cache starts over, as
  /// `SQLiteConnection.statementLimit` explains.
  var statementLimit = SQLiteConnection.statementLimit
  /// How many statements are kept prepared now (on the server), or `$n` texts (pooled).
  var cachedStatements: Int { pooled ? numberedTexts.count : prepared.count }
  /// What opens a transaction: `BEGIN`, and in a pooled session its settings in the same message.
  private let begin: String
  /// Statements run since the prepared ones were last dropped, and when to drop them next.
  private var executions = 0
  private var replanAt = PostgresConnection.firstReplan
  private(set) var changes = 0
  private var lastUsed = ContinuousClock.now

  /// Connects; a direct session's settings run on every (re)connection.
  init(conninfo: String, session: Session) throws {
    self.conninfo = conninfo
    self.session = session
    switch session {
    case .direct: begin = "BEGIN"
    case .pooled(let settings): begin = (["BEGIN"] + settings).joined(separator: "; ")
    }
    try connect()
  }

  private var pooled: Bool {
    if case .pooled = session { return true }
    return false
  }

  deinit { PQfinish(handle) }

  private func connect() throws {
    PQfinish(handle)
    prepared = [:]
    executions = 0
    replanAt = Self.firstReplan
    handle = PQconnectdb(conninfo)
    guard PQstatus(handle) == CONNECTION_OK else {
      let message = lastError()
      PQfinish(handle)
      handle = nil
      throw StoreError.unavailable("cannot connect to PostgreSQL: \(message)")
    }
    if case .direct(let settings) = session {
      for statement in settings { try execute(statement) }
    }
  }

  /// Reconnects when the connection was lost (a database restart). libpq notices a closed
  /// socket only when it reads, so the pending input of a connection that sat idle is read
  /// first, without blocking: the first read takes a server's "terminating connection" message,
  /// the second meets the end of the stream. A restarted database thus costs no failed request
  /// on each connection that sat idle meanwhile. Statements in quick succession (a transaction's)
  /// skip the reads: no restart fits in `idleProbe`, and a stop in between fails them anyway.
  private func ensureConnected() throws {
    let now = ContinuousClock.now
    defer { lastUsed = now }
    guard handle != nil, PQstatus(handle) == CONNECTION_OK else { return try connect() }
    guard lastUsed.duration(to: now) >= Self.idleProbe else { return }
    if PQconsumeInput(handle) == 1, PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK { return }
    try connect()
  }

  /// Idle time after which a connection's socket is checked before use.
  static let idleProbe: Duration = .milliseconds(100)

  func execute(_ sql: String) throws {
    try ensureConnected()
    let result = PQexec(handle, sql)
    defer { PQclear(result) }
    try check(result)
  }

  @discardableResult
  func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
    try ensureConnected()
    try replanIfDue()
    return try run(sql, parameters, prepared: pooled ? nil : try statement(for: sql, count: parameters.count))
  }

  /// Sent unnamed, as through a pooler: PostgreSQL plans an unnamed statement with the values
  /// bound to it, in the same round trip, and keeps no plan.
  @discardableResult
  func lookup(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
    try ensureConnected()
    return try run(sql, parameters, prepared: nil)
  }

  private func run(_ sql: String, _ parameters: [SQLValue], prepared name: String?) throws -> [SQLRow] {
    let texts: [String?] = parameters.map { value in
      switch value {
      case .null: return nil
      case .integer(let number): return String(number)
      case .real(let number): return String(number)
      case .text(let text): return text
      case .blob(let data): return String(decoding: data, as: UTF8.self)
      }
    }
    let result = Self.withCStrings(texts) { pointers in
      if let name { return PQexecPrepared(handle, name, Int32(pointers.count), pointers, nil, nil, 0) }
      return PQexecParams(handle, numbered(sql), Int32(pointers.count), nil, pointers, nil, nil, 0)
    }
    defer { PQclear(result) }
    try check(result)
    changes = Int(String(cString: PQcmdTuples(result))) ?? 0
    var rows: [SQLRow] = []
    let count = PQntuples(result)
    let fields = PQnfields(result)
    let columns = SQLRow.Columns((0..<fields).map { String(cString: PQfname(result, $0)) })
    rows.reserveCapacity(Int(count))
    for row in 0..<count {
      let values = (0..<fields).map { column -> SQLValue in
        PQgetisnull(result, row, column) == 1 ? .null : .text(String(cString: PQgetvalue(result, row, column)))
      }
      rows.append(SQLRow(columns: columns, values: values))
    }
    return rows
  }

  /// Loads `lines` (each one row in `COPY`'s text format, ending in a newline: see
  /// `BulkRows.copyLine`) into `table (columns)` with `COPY … FROM STDIN`, PostgreSQL's bulk
  /// path: no statement to parse or plan per row, no parameters to bind. Runs in the caller's
  /// transaction; an error (a constraint, a bad value) fails the whole load.
  func copy(into table: String, columns: String, lines: [String]) throws {
    try ensureConnected()
    let started = PQexec(handle, "COPY \(table) (\(columns)) FROM STDIN")
    guard PQresultStatus(started) == PGRES_COPY_IN else {
      defer { PQclear(started) }
      try check(started)
      throw StoreError.database("PostgreSQL did not start COPY into \(table): \(lastError())")
    }
    PQclear(started)
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 20)
    func send() {
      _ = buffer.withUnsafeBufferPointer { bytes in
        bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
          PQputCopyData(handle, $0, Int32(bytes.count))
        }
      }
      buffer.removeAll(keepingCapacity: true)
    }
    for line in lines {
      buffer.append(contentsOf: line.utf8)
      if buffer.count >= 1 << 20 { send() }
    }
    if !buffer.isEmpty { send() }
    // A failed send shows in the result PostgreSQL gives after the end.
    PQputCopyEnd(handle, nil)
    var failure: (any Error)?
    while let result = PQgetResult(handle) {
      do { try check(result) } catch { failure = failure ?? error }
      PQclear(result)
    }
    executions += 1
    if let failure { throw failure }
  }

  /// Runs `body` in a transaction; one that PostgreSQL rolls back to break a deadlock or a
  /// serialization conflict runs again (up to `conflictRetries` times, after a short random
  /// pause so the two sides do not meet again): writers whose rows overlap in another order —
  /// event batches and purchases bumping the same rollup rows — both commit instead of one
  /// answering 500. Bodies keep their state inside, so running one again is safe.
  func transaction<T>(_ body: () throws -> T) throws -> T {
    var attempt = 0
    while true {
      do { try execute(begin) } catch {
        // A pooled BEGIN carries its settings: one that failed after BEGIN left a transaction
        // open, which would fail everything the connection runs next.
        try? execute("ROLLBACK")
        throw error
      }
      do {
        let value = try body()
        try execute("COMMIT")
        return value
      } catch StoreError.conflict(_) where attempt < Self.conflictRetries {
        try? execute("ROLLBACK")
        attempt += 1
        usleep(UInt32.random(in: 2_000...20_000) * UInt32(attempt))
      } catch {
        try? execute("ROLLBACK")
        throw error
      }
    }
  }

  /// Executions after which the prepared statements are dropped the first time; the next
  /// drops come ten times as late, then every `lastReplan` executions.
  static let firstReplan = 1_000
  static let lastReplan = 1_000_000

  /// Drops the prepared statements when due, so that each is planned again for the tables as
  /// they are now. PostgreSQL settles on a generic plan after a statement's fifth run and keeps
  /// it for the connection's life; planned on a new, empty database, where every index looks
  /// alike, a purchase's lookup of its subscription's first transaction walked every
  /// transaction of the app (0.6 ms at 5 000 transactions, growing with them).
  private func replanIfDue() throws {
    executions += 1
    guard !pooled, executions >= replanAt, PQtransactionStatus(handle) != PQTRANS_INERROR else { return }
    try execute("DEALLOCATE ALL")
    prepared = [:]
    replanAt = executions >= Self.lastReplan ? executions + Self.lastReplan : executions * 10
  }

  /// Times a transaction ran again after a deadlock or serialization conflict.
  static let conflictRetries = 3

  private func numbered(_ sql: String) -> String {
    if let text = numberedTexts[sql] { return text }
    if numberedTexts.count >= statementLimit { numberedTexts = [:] }
    let text = Self.numbered(sql)
    numberedTexts[sql] = text
    return text
  }

  private func statement(for sql: String, count: Int) throws -> String {
    if let name = prepared[sql] { return name }
    // In a failed transaction nothing runs until it ends; the cache starts over after it.
    if prepared.count >= statementLimit, PQtransactionStatus(handle) != PQTRANS_INERROR {
      try execute("DEALLOCATE ALL")
      prepared = [:]
    }
    let name = "tollgate_\(prepared.count)"
    let result = PQprepare(handle, name, Self.numbered(sql), Int32(count), nil)
    defer { PQclear(result) }
    try check(result)
    prepared[sql] = name
    return name
  }

  private func check(_ result: OpaquePointer?) throws {
    let status = PQresultStatus(result)
    guard status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK else { return }
    if PQstatus(handle) != CONNECTION_OK {
      throw StoreError.unavailable("PostgreSQL connection lost: \(lastError())")
    }
    let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
    let message = PQresultErrorMessage(result).map { String(cString: $0) } ?? lastError()
    // 57P01–57P03: the server is shutting down or starting; 08xxx: connection problems.
    if state.hasPrefix("57P") || state.hasPrefix("08") {
      throw StoreError.unavailable("PostgreSQL \(state): \(message)")
    }
    // 40P01 deadlock_detected, 40001 serialization_failure: rolled back, may run again.
    if state == "40P01" || state == "40001" {
      throw StoreError.conflict("PostgreSQL \(state): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
    }
    // 53100 disk_full, 53000 insufficient_resources, 58030 io_error: the storage cannot write.
    if ["53100", "53000", "58030"].contains(state) {
      throw StoreError.storageUnavailable("PostgreSQL \(state): \(message)")
    }
    throw StoreError.database("PostgreSQL \(state): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
  }

  private func lastError() -> String {
    handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0) }?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? "no connection"
  }

  /// `?` placeholders (outside quotes) become `$1`, `$2`, …
  static func numbered(_ sql: String) -> String {
    var out = ""
    var index = 0
    var quoted = false
    for character in sql {
      if character == "'" { quoted.toggle() }
      if character == "?" && !quoted {
        index += 1
        out += "$\(index)"
      } else {
        out.append(character)
      }
    }
    return out
  }

  private static func withCStrings<R>(
    _ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R
  ) -> R {
    let buffers: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { buffers.forEach { free($0) } }
    return body(buffers.map { $0.map { UnsafePointer($0) } })
  }
}
