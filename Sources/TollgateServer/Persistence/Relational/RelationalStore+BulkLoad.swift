import Foundation
import TollgateAPI

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
  package static func bulkLoad(into store: any Store, appId: Int64, _ load: BulkLoad) throws {
    let unwrapped: Any = (store as? CachedStore)?.database ?? store
    guard let relational = unwrapped as? any RelationalStore else {
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
          db, table: "profiles", columns: "app_id, \(SQLColumns.profile)",
          load.profiles.map { [app] + Self.values($0) })
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
          db, table: "app_store_transactions",
          columns: """
            app_id, transaction_id, original_transaction_id, product_id, app_account_token, signed_at, variation_id,
            payload, jws, received_at, attr_placement, attr_audience, attr_variation, attr_profile
            """,
          load.transactions.map { stored, credit in
            let payload = stored.payload
            return [
              app, .text(payload.transactionId), .text(payload.originalTransactionId), .text(payload.productId),
              payload.appAccountToken.map { SQLValue.text($0.lowercased()) } ?? .null,
              .real(Double(payload.signedDate) / 1000), stored.variationId.map(SQLValue.text) ?? .null,
              Self.json(payload), .text(stored.jws), .real(Double(payload.signedDate) / 1000),
              .text(credit.placementId), .text(credit.audienceId), .text(credit.variationId),
              credit.profileId.map(SQLValue.text) ?? .null,
            ]
          })
        var owners: [String: String] = [:]
        for (stored, credit) in load.transactions {
          if let profile = credit.profileId { owners[stored.payload.originalTransactionId] = profile }
        }
        try Self.insertRows(
          db, table: "app_store_owners", columns: "app_id, original_transaction_id, profile_id, linked_at",
          owners.sorted { $0.key < $1.key }.map { [app, .text($0.key), .text($0.value), .real(0)] })
      }
    }
  }

  /// Plain inserts, as many rows a statement as the engines' parameter limits allow.
  static func insertRows(_ db: any SQLConnection, table: String, columns: String, _ rows: [[SQLValue]]) throws {
    guard let width = rows.first?.count else { return }
    let tuple = "(" + Array(repeating: "?", count: width).joined(separator: ", ") + ")"
    let perStatement = max(1, 30_000 / width)
    for start in stride(from: 0, to: rows.count, by: perStatement) {
      let chunk = rows[start..<min(start + perStatement, rows.count)]
      try db.query(
        "INSERT INTO \(table) (\(columns)) VALUES \(Array(repeating: tuple, count: chunk.count).joined(separator: ", "))",
        chunk.flatMap { $0 })
    }
  }
}
