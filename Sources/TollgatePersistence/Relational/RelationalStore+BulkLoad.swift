import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Raw facts for `StoreLocation.bulkLoad`.
package struct BulkLoad: Sendable {
  package var profiles: [ProfileRecord] = []
  package var events: [EventRecord] = []
  /// Transactions with the credit the live path would have given them; the profile credited
  /// also owns the subscription.
  package var transactions: [(StoredTransaction, PurchaseAttribution)] = []

  package init() {}
}

extension StoreLocation {
  /// Writes raw facts many rows a statement in one transaction, without touching a rollup: the
  /// scale benchmark loads its data set this way (the same rows on SQLite and PostgreSQL), then
  /// `rebuildRollups` derives every figure from them.
  package static func bulkLoad(into store: any Database, appId: Int64, _ load: BulkLoad) throws {
    guard let relational = store as? any RelationalStore else {
      throw StoreError.database("a bulk load needs an SQL store")
    }
    try relational.bulkLoad(appId: appId, load)
  }
}

extension RelationalStore {
  func bulkLoad(appId: Int64, _ load: BulkLoad) throws {
    let app = SQLValue.integer(appId)
    try with { db in
      try db.transaction {
        try Self.insertRows(
          db, table: "profiles", columns: BulkRows.profileColumns, load.profiles.map { BulkRows.profile(appId, $0) })
        try Self.insertRows(
          db, table: "events",
          columns: "app_id, event_id, profile_id, placement_id, audience_id, variation_id, flow_id, received_at",
          load.events.map { event in
            [
              app, event.eventId.map(SQLValue.text) ?? .null, .text(event.profileId), .text(event.placementId),
              .text(event.audienceId), .text(event.variationId), .text(event.flowId),
              .real(event.receivedAt.timeIntervalSince1970),
            ]
          })
        try Self.insertRows(
          db, table: "app_store_transactions", columns: BulkRows.transactionColumns,
          load.transactions.map { BulkRows.transaction(appId, $0.0, credit: $0.1) })
        var owners: [String: String] = [:]
        for (stored, credit) in load.transactions {
          if let profile = credit.profileId { owners[stored.payload.originalTransactionId] = profile }
        }
        try Self.insertRows(
          db, table: "app_store_owners", columns: BulkRows.ownerColumns,
          owners.sorted { $0.key < $1.key }.map { BulkRows.owner(appId, original: $0.key, profileId: $0.value) })
      }
    }
  }

  /// Inserts, as many rows a statement as the engines' parameter limits allow; `suffix` (an
  /// `ON CONFLICT …` clause, a `RETURNING` list) ends every statement, and the rows it returns
  /// are answered.
  @discardableResult
  static func insertRows(
    _ db: any SQLConnection, table: String, columns: String, _ rows: [[SQLValue]], suffix: String = ""
  ) throws -> [SQLRow] {
    guard let width = rows.first?.count else { return [] }
    let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
    var returned: [SQLRow] = []
    for range in statementRanges(rows.count, limit: 30_000 / width) {
      let chunk = rows[range]
      returned += try db.query(
        """
        INSERT INTO \(table) (\(columns)) VALUES \(Array(repeating: tuple, count: chunk.count).joined(separator: ", "))
        \(suffix)
        """, chunk.flatMap { $0 })
    }
    return returned
  }
}

extension RelationalStore {
  /// Rows written the fastest way the engine has, for loads of thousands (an import's batch):
  /// on PostgreSQL `COPY` — straight into `table`, or, when `suffix` is set (an `ON CONFLICT`
  /// clause, `RETURNING`), into a staging table dropped at commit and from there with one
  /// `INSERT … SELECT … suffix`; on SQLite, where a bound INSERT costs little, `insertRows`.
  @discardableResult
  static func loadRows(
    _ db: any SQLConnection, table: String, columns: String, _ rows: [[SQLValue]], suffix: String = ""
  ) throws -> [SQLRow] {
    guard let postgres = db as? PostgresConnection, rows.count >= 64 else {
      return try insertRows(db, table: table, columns: columns, rows, suffix: suffix)
    }
    let lines = rows.map(BulkRows.copyLine)
    if suffix.isEmpty {
      try postgres.copy(into: table, columns: columns, lines: lines)
      return []
    }
    let stage = "\(table)_load"
    try postgres.execute("CREATE TEMPORARY TABLE \(stage) (LIKE \(table) INCLUDING DEFAULTS) ON COMMIT DROP")
    try postgres.copy(into: stage, columns: columns, lines: lines)
    let selected = try postgres.query(
      "INSERT INTO \(table) (\(columns)) SELECT \(columns) FROM \(stage) \(suffix)", [])
    try postgres.execute("DROP TABLE \(stage)")
    return selected
  }

  /// Splits `count` rows into statements of power-of-two sizes up to `limit` rows: every
  /// statement text is cached prepared on each connection, so a few sizes are used again
  /// and again instead of one text for every batch length.
  static func statementRanges(_ count: Int, limit: Int) -> [Range<Int>] {
    StatementRanges.split(count, limit: limit)
  }
}

/// The columns and values of raw rows as the store writes them, for bulk loads: `insertRows`
/// binds them, and `copyLine` renders them in PostgreSQL's `COPY … FROM STDIN` text format, so
/// a load piped to `COPY` (the scale benchmark's ten million profiles) holds exactly the bytes
/// the live path would have stored.
package enum BulkRows {
  /// The `profiles` columns `profile` fills, in order.
  package static let profileColumns = "app_id, \(SQLColumns.profile)"
  /// The `app_store_transactions` columns `transaction` fills, in order.
  package static let transactionColumns = """
    app_id, transaction_id, original_transaction_id, product_id, app_account_token, signed_at, variation_id, \
    payload, jws, received_at, attr_placement, attr_audience, attr_variation, attr_profile
    """
  /// The `app_store_owners` columns `owner` fills, in order.
  package static let ownerColumns = "app_id, original_transaction_id, profile_id, linked_at"
  /// The `assignments` columns `assignment` fills, in order.
  package static let assignmentColumns = "app_id, profile_id, placement_id, audience_id, variation_id, assigned_at"

  static func profile(_ appId: Int64, _ record: ProfileRecord) -> [SQLValue] {
    [.integer(appId)] + PostgresStore.values(record)
  }

  static func transaction(_ appId: Int64, _ stored: StoredTransaction, credit: PurchaseAttribution) -> [SQLValue] {
    let payload = stored.payload
    return [
      .integer(appId), .text(payload.transactionId), .text(payload.originalTransactionId), .text(payload.productId),
      payload.appAccountToken.map { SQLValue.text($0.lowercased()) } ?? .null,
      .real(Double(payload.signedDate) / 1000), stored.variationId.map(SQLValue.text) ?? .null,
      PostgresStore.json(payload), .text(stored.jws), .real(Double(payload.signedDate) / 1000),
      .text(credit.placementId), .text(credit.audienceId), .text(credit.variationId),
      credit.profileId.map(SQLValue.text) ?? .null,
    ]
  }

  static func owner(_ appId: Int64, original: String, profileId: String) -> [SQLValue] {
    [.integer(appId), .text(original), .text(profileId), .real(0)]
  }

  /// A profile as one `COPY` line (`profileColumns`).
  package static func profileLine(appId: Int64, _ record: ProfileRecord) -> String {
    copyLine(profile(appId, record))
  }

  /// A transaction and its credit as one `COPY` line (`transactionColumns`).
  package static func transactionLine(appId: Int64, _ stored: StoredTransaction, credit: PurchaseAttribution)
    -> String
  {
    copyLine(transaction(appId, stored, credit: credit))
  }

  /// The link of a subscription to its owner as one `COPY` line (`ownerColumns`).
  package static func ownerLine(appId: Int64, original: String, profileId: String) -> String {
    copyLine(owner(appId, original: original, profileId: profileId))
  }

  /// A stored assignment as one `COPY` line (`assignmentColumns`).
  package static func assignmentLine(
    appId: Int64, profileId: String, placementId: String, audienceId: String, variationId: String, at date: Date
  ) -> String {
    copyLine([
      .integer(appId), .text(profileId), .text(placementId), .text(audienceId), .text(variationId),
      .real(date.timeIntervalSince1970),
    ])
  }

  /// Tab-separated fields ending in a newline; `\N` for NULL; backslash, tab, newline and
  /// carriage return escaped as the format requires.
  static func copyLine(_ values: [SQLValue]) -> String {
    var line = ""
    for (index, value) in values.enumerated() {
      if index > 0 { line += "\t" }
      switch value {
      case .null: line += "\\N"
      case .integer(let number): line += String(number)
      case .real(let number): line += "\(number)"
      case .text(let text): line += escaped(text)
      case .blob(let data): line += "\\\\x" + data.map { String(format: "%02x", $0) }.joined()
      }
    }
    return line + "\n"
  }

  private static func escaped(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
    var out = ""
    for character in text.unicodeScalars {
      switch character {
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      default: out.unicodeScalars.append(character)
      }
    }
    return out
  }
}

/// Statement sizes for rows written or keys read many a statement.
enum StatementRanges {
  /// `?, ?, …`: the placeholders of an `IN` list of `count` keys.
  static func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
  }

  /// Splits `count` into ranges of power-of-two sizes up to `limit`.
  static func split(_ count: Int, limit: Int) -> [Range<Int>] {
    var largest = 1
    while largest * 2 <= max(1, limit) { largest *= 2 }
    var ranges: [Range<Int>] = []
    var start = 0
    while start < count {
      var size = largest
      while size > count - start { size /= 2 }
      ranges.append(start..<start + size)
      start += size
    }
    return ranges
  }
}
