import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The webhook outbox: one row per event and subscribed webhook, written in the transaction
/// of the change it reports; delivered at least once, in order per webhook and profile.
extension RelationalStore {
  /// How long a delivery is retried before it is parked.
  static var deliveryWindow: TimeInterval { 72 * 3600 }

  static func enqueueWebhookEvents(
    _ db: any SQLConnection, appId: Int64, _ events: [PendingWebhookEvent], to webhooks: [WebhookConfig], at: Date
  ) throws {
    guard !events.isEmpty, !webhooks.isEmpty else { return }
    guard
      let app = try db.query("SELECT name FROM apps WHERE id = ?", [.integer(appId)]).first?.decode(
        "name", as: String.self)
    else { throw StoreError.database("no app with id \(appId)") }
    var customers: [String: String?] = [:]
    for event in events {
      let subscribed = webhooks.filter { $0.events.contains(event.type) }
      guard !subscribed.isEmpty else { continue }
      if customers[event.profileId] == nil {
        customers[event.profileId] = try profile(db, appId: appId, id: event.profileId)?.customerUserId
      }
      let body = WebhookEventBody(
        eventId: "evt_" + Digest.hex(Digest.randomBytes(12)), type: event.type, createdAt: Timestamp.string(at),
        app: app,
        profileId: event.profileId, customerUserId: customers[event.profileId] ?? nil, data: event.data)
      let text = String(decoding: WireCoding.encode(body), as: UTF8.self)
      for webhook in subscribed {
        try db.query(
          """
          INSERT INTO webhook_deliveries (app_id, event_id, webhook_id, profile_id, event_type, body, next_attempt_at,
          deadline, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          [
            .integer(appId), .text(body.eventId), .text(webhook.id), .text(event.profileId), .text(event.type.rawValue),
            .text(text), .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970 + deliveryWindow),
            .real(at.timeIntervalSince1970),
          ])
      }
    }
  }

  public func ensureWebhookSecrets(appId: Int64, ids: [String], box: SecretBox, at: Date) throws -> [String: String] {
    try with { db in
      try db.transaction {
        var created: [String: String] = [:]
        for id in ids {
          let secret = "whsec_" + Digest.hex(Digest.randomBytes(24))
          try db.query(
            "INSERT INTO webhook_secrets (app_id, webhook_id, sealed, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [.integer(appId), .text(id), .text(try box.seal(secret)), .real(at.timeIntervalSince1970)])
          if db.changes == 1 { created[id] = secret }
        }
        return created
      }
    }
  }

  public func rotateWebhookSecret(appId: Int64, id: String, box: SecretBox, at: Date) throws -> String {
    let secret = "whsec_" + Digest.hex(Digest.randomBytes(24))
    try with { db in
      try db.query(
        """
        INSERT INTO webhook_secrets (app_id, webhook_id, sealed, created_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (app_id, webhook_id) DO UPDATE SET sealed = excluded.sealed, created_at = excluded.created_at
        """, [.integer(appId), .text(id), .text(try box.seal(secret)), .real(at.timeIntervalSince1970)])
    }
    return secret
  }

  public func webhookSecret(appId: Int64, id: String, box: SecretBox) throws -> String? {
    try with { db in
      try db.query(
        "SELECT sealed FROM webhook_secrets WHERE app_id = ? AND webhook_id = ?", [.integer(appId), .text(id)]
      ).first.map { try box.open(try $0.decode("sealed")) }
    }
  }

  static var deliveryColumns: String {
    """
    seq, app_id, webhook_id, event_id, event_type, profile_id, status, attempts, next_attempt_at, deadline, last_status,
    last_error, created_at, delivered_at, body
    """
  }

  static func delivery(_ row: SQLRow) throws -> WebhookDelivery {
    func time(_ name: String) throws -> String { Timestamp.string(try row.decode(name)) }
    return WebhookDelivery(
      id: try row.decode("seq"), appId: try row.decode("app_id"), webhookId: try row.decode("webhook_id"),
      eventId: try row.decode("event_id"), eventType: try row.decode("event_type"),
      profileId: try row.decode("profile_id"), status: try row.decode("status"), attempts: try row.decode("attempts"),
      nextAttemptAt: try time("next_attempt_at"), deadline: try time("deadline"),
      lastStatus: try row.decode("last_status"), lastError: try row.decode("last_error"),
      createdAt: try time("created_at"),
      deliveredAt: try row.decode("delivered_at", as: Date?.self).map(Timestamp.string), body: try row.decode("body"))
  }

  public func claimWebhookDeliveries(now: Date, lease: TimeInterval, limit: Int) throws -> [WebhookDelivery] {
    try with { db in
      try db.transaction {
        try db.query(
          """
          UPDATE webhook_deliveries SET lease_until = ?
          WHERE seq IN (
            SELECT d.seq FROM webhook_deliveries d
            WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND d.lease_until <= ?
            AND NOT EXISTS (
              SELECT 1 FROM webhook_deliveries e WHERE e.app_id = d.app_id AND e.webhook_id = d.webhook_id
              AND e.profile_id = d.profile_id AND e.status = 'pending' AND e.seq < d.seq)
            ORDER BY d.seq LIMIT ?\(dialect.skipLocked))
          RETURNING \(Self.deliveryColumns)
          """,
          [
            .real(now.timeIntervalSince1970 + lease), .real(now.timeIntervalSince1970),
            .real(now.timeIntervalSince1970),
            .integer(Int64(limit)),
          ]
        ).map(Self.delivery).sorted { $0.id < $1.id }
      }
    }
  }

  public func finishWebhookDelivery(id: Int64, _ outcome: WebhookAttemptOutcome, at: Date) throws {
    try with { db in
      let now = SQLValue.real(at.timeIntervalSince1970)
      switch outcome {
      case .delivered(let status):
        try db.query(
          """
          UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL,
          delivered_at = ?, lease_until = 0 WHERE seq = ?
          """, [.integer(Int64(status)), now, .integer(id)])
      case .retry(let next, let status, let error):
        try db.query(
          """
          UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?, next_attempt_at = ?,
          lease_until = 0 WHERE seq = ?
          """,
          [status.map { .integer(Int64($0)) } ?? .null, .text(error), .real(next.timeIntervalSince1970), .integer(id)])
      case .parked(let status, let error):
        try db.query(
          """
          UPDATE webhook_deliveries SET status = 'parked', attempts = attempts + 1, last_status = ?, last_error = ?,
          lease_until = 0 WHERE seq = ?
          """, [status.map { .integer(Int64($0)) } ?? .null, .text(error), .integer(id)])
      }
    }
  }

  public func webhookDeliveries(appId: Int64, status: String?, limit: Int) throws -> [WebhookDelivery] {
    try with { db in
      if let status {
        return try db.query(
          "SELECT \(Self.deliveryColumns) FROM webhook_deliveries WHERE app_id = ? AND status = ? ORDER BY seq DESC LIMIT ?",
          [.integer(appId), .text(status), .integer(Int64(limit))]
        ).map(Self.delivery)
      }
      return try db.query(
        "SELECT \(Self.deliveryColumns) FROM webhook_deliveries WHERE app_id = ? ORDER BY seq DESC LIMIT ?",
        [.integer(appId), .integer(Int64(limit))]
      ).map(Self.delivery)
    }
  }

  public func redeliverWebhook(appId: Int64, id: Int64, at: Date) throws -> WebhookDelivery? {
    try with { db in
      try db.query(
        """
        UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, deadline = ?, lease_until = 0
        WHERE app_id = ? AND seq = ?
        RETURNING \(Self.deliveryColumns)
        """,
        [
          .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970 + Self.deliveryWindow), .integer(appId),
          .integer(id),
        ]
      ).first.map(Self.delivery)
    }
  }
}
