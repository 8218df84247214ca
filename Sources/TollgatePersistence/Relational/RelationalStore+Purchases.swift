import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

extension RelationalStore {
  public func purchases<T>(appId: Int64, _ work: (any PurchaseUnitOfWork) throws -> T) throws -> T {
    let (result, saved) = try with { db in
      try db.transaction {
        let unit = RelationalPurchases(db, appId: appId, store: self)
        let result = try work(unit)
        try unit.writeInserts()
        try unit.writeSubscriptionEnds()
        try Self.write(unit.pending, db, appId: appId)
        return (result, unit.saved)
      }
    }
    profileChanges.announce(appId: appId, saved)
    return result
  }

  public func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction] {
    try with { db in
      try db.query(
        """
        SELECT payload, jws, variation_id, attr_variation FROM app_store_transactions WHERE app_id = ?
        AND original_transaction_id IN
        (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?) ORDER BY signed_at DESC
        """, [.integer(appId), .integer(appId), .text(profileId)]
      ).map { row in
        let credited = try row.decode("attr_variation", as: String.self)
        return StoredTransaction(
          payload: try StoredPayloads.shared.payload(row),
          jws: try row.decode("jws"), variationId: try row.decode("variation_id"),
          creditedVariationId: credited.isEmpty ? nil : credited)
      }
    }
  }

  public func notifications(appId: Int64, profileId: String) throws -> [NotificationLine] {
    try with { db in
      try db.query(
        """
        SELECT notification_uuid, notification_type, subtype, original_transaction_id, signed_at, received_at, origin
        FROM app_store_notifications WHERE app_id = ? AND original_transaction_id IN
        (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?) ORDER BY signed_at
        """, [.integer(appId), .integer(appId), .text(profileId)]
      ).map { row in
        NotificationLine(
          uuid: try row.decode("notification_uuid"), type: try row.decode("notification_type"),
          subtype: try row.decode("subtype"), originalTransactionId: try row.decode("original_transaction_id"),
          signedAt: try row.decode("signed_at"), receivedAt: try row.decode("received_at"),
          origin: try row.decode("origin"))
      }
    }
  }

  public func grants(appId: Int64, profileId: String) throws -> [AccessGrant] {
    try with { db in
      try db.query(
        "SELECT \(Self.grantColumns) FROM access_grants WHERE app_id = ? AND profile_id = ? ORDER BY id",
        [.integer(appId), .text(profileId)]
      ).map(Self.grant)
    }
  }

  public func refundRequests(appId: Int64, profileId: String) throws -> [StoredRefundRequest] {
    try with { db in
      try db.query(
        """
        SELECT \(Self.refundRequestColumns) FROM app_store_refund_requests WHERE app_id = ? AND original_transaction_id IN
        (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?) ORDER BY requested_at
        """, [.integer(appId), .integer(appId), .text(profileId)]
      ).map(Self.refundRequest)
    }
  }

  static var grantColumns: String {
    "id, access_level, granted_at, expires_at, reason, granted_by, revoked_at, revoked_by"
  }

  static func grant(_ row: SQLRow) throws -> AccessGrant {
    AccessGrant(
      id: try row.decode("id"), accessLevel: try row.decode("access_level"),
      grantedAt: Date(timeIntervalSince1970: try row.decode("granted_at")),
      expiresAt: try row.decode("expires_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
      reason: try row.decode("reason"), grantedBy: try row.decode("granted_by"),
      revokedAt: try row.decode("revoked_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
      revokedBy: try row.decode("revoked_by"))
  }

  static var refundRequestColumns: String {
    """
    app_id, notification_uuid, transaction_id, original_transaction_id, product_id, product_type, environment, reason,
    requested_at, received_at, status, next_try_at, attempts, answer, answered_at, last_error, outcome, closed_at
    """
  }

  static func refundRequest(_ row: SQLRow) throws -> StoredRefundRequest {
    StoredRefundRequest(
      appId: try row.decode("app_id"), notificationUUID: try row.decode("notification_uuid"),
      transactionId: try row.decode("transaction_id"), originalTransactionId: try row.decode("original_transaction_id"),
      productId: try row.decode("product_id"), productType: try row.decode("product_type"),
      environment: try row.decode("environment"), reason: try row.decode("reason"),
      requestedAt: try row.decode("requested_at"), receivedAt: try row.decode("received_at"),
      status: try row.decode("status"), nextTryAt: try row.decode("next_try_at"), attempts: try row.decode("attempts"),
      answer: try row.decode("answer"), answeredAt: try row.decode("answered_at"),
      lastError: try row.decode("last_error"), outcome: try row.decode("outcome"),
      closedAt: try row.decode("closed_at"))
  }

  static func json<T: Encodable>(_ value: T) -> SQLValue {
    .text(String(decoding: WireCoding.encode(value), as: UTF8.self))
  }
}
