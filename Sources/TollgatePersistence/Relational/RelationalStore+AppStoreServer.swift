import Foundation
import TollgateDomain
import TollgateSupport

extension RelationalStore {
  static var recoveryColumns: String {
    """
    app_id, environment, status, next_run_at, lease_owner, lease_until, run_start, run_end, page_token, covered_from,
    covered_to, recovered, already_known, refused, attempts, last_call_at, last_success_at, last_error, failure,
    reconciled
    """
  }

  static func recoveryJob(_ row: SQLRow) throws -> RecoveryJob {
    RecoveryJob(
      appId: try row.decode("app_id"), environment: try row.decode("environment"), status: try row.decode("status"),
      nextRunAt: try row.decode("next_run_at"), leaseOwner: try row.decode("lease_owner"),
      leaseUntil: try row.decode("lease_until"), runStart: try row.decode("run_start"),
      runEnd: try row.decode("run_end"), pageToken: try row.decode("page_token"),
      coveredFrom: try row.decode("covered_from"), coveredTo: try row.decode("covered_to"),
      recovered: try row.decode("recovered"), alreadyKnown: try row.decode("already_known"),
      refused: try row.decode("refused"), attempts: try row.decode("attempts"),
      lastCallAt: try row.decode("last_call_at"), lastSuccessAt: try row.decode("last_success_at"),
      lastError: try row.decode("last_error"), failure: try row.decode("failure"),
      reconciled: try row.decode("reconciled"))
  }

  public func saveAppStoreCredentials(
    appId: Int64, sealedKey: String, keyFingerprint: String, environments: [String], at: Date
  ) throws {
    let now = SQLValue.real(at.timeIntervalSince1970)
    try with { db in
      try db.transaction {
        try db.query(
          """
          INSERT INTO app_store_api_credentials (app_id, sealed_key, key_fingerprint, created_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (app_id) DO UPDATE SET sealed_key = excluded.sealed_key,
          key_fingerprint = excluded.key_fingerprint, created_at = excluded.created_at
          """, [.integer(appId), .text(sealedKey), .text(keyFingerprint), now])
        // A run in progress keeps its window and page: the new key continues it.
        for environment in environments {
          try db.query(
            """
            INSERT INTO app_store_recoveries (app_id, environment, status, next_run_at, updated_at)
            VALUES (?, ?, 'scheduled', ?, ?)
            ON CONFLICT (app_id, environment) DO UPDATE SET status = 'scheduled', next_run_at = excluded.next_run_at,
            attempts = 0, failure = NULL, updated_at = excluded.updated_at
            """, [.integer(appId), .text(environment), now, now])
        }
        // Environments the configuration no longer names lose their job.
        let existing = try db.query(
          "SELECT environment FROM app_store_recoveries WHERE app_id = ?", [.integer(appId)]
        ).map { try $0.decode("environment", as: String.self) }
        for environment in existing where !environments.contains(environment) {
          try db.query(
            "DELETE FROM app_store_recoveries WHERE app_id = ? AND environment = ?",
            [.integer(appId), .text(environment)])
        }
      }
    }
  }

  public func deleteAppStoreCredentials(appId: Int64) throws -> Bool {
    try with { db in
      try db.transaction {
        try db.query("DELETE FROM app_store_recoveries WHERE app_id = ?", [.integer(appId)])
        try db.query("DELETE FROM app_store_api_credentials WHERE app_id = ?", [.integer(appId)])
        return db.changes == 1
      }
    }
  }

  public func appStoreCredentials(appId: Int64) throws -> StoredAppStoreCredentials? {
    try with { db in
      try db.query(
        "SELECT sealed_key, key_fingerprint, created_at FROM app_store_api_credentials WHERE app_id = ?",
        [.integer(appId)]
      ).first.map { row in
        StoredAppStoreCredentials(
          sealedKey: try row.decode("sealed_key"), keyFingerprint: try row.decode("key_fingerprint"),
          createdAt: try row.decode("created_at"))
      }
    }
  }

  public func claimRecovery(now: Date, leaseUntil: Date, owner: String) throws -> RecoveryJob? {
    let at = SQLValue.real(now.timeIntervalSince1970)
    return try with { db in
      try db.transaction {
        guard
          let due = try db.query(
            """
            SELECT app_id, environment FROM app_store_recoveries WHERE status = 'scheduled' AND next_run_at <= ?
            AND lease_until <= ? ORDER BY next_run_at LIMIT 1\(dialect.skipLocked)
            """, [at, at]
          ).first
        else { return nil }
        let key: [SQLValue] = [.integer(try due.decode("app_id")), .text(try due.decode("environment"))]
        return try db.query(
          """
          UPDATE app_store_recoveries SET lease_owner = ?, lease_until = ? WHERE app_id = ? AND environment = ?
          AND lease_until <= ? RETURNING \(Self.recoveryColumns)
          """, [.text(owner), .real(leaseUntil.timeIntervalSince1970)] + key + [at]
        ).first.map(Self.recoveryJob)
      }
    }
  }

  public func beginRecoveryRun(appId: Int64, environment: String, owner: String, from: Date, to: Date, at: Date)
    throws -> Bool
  {
    try with { db in
      try db.query(
        """
        UPDATE app_store_recoveries SET run_start = COALESCE(run_start, ?), run_end = COALESCE(run_end, ?),
        last_call_at = ?, updated_at = ? WHERE app_id = ? AND environment = ? AND lease_owner = ?
        """,
        [
          .real(from.timeIntervalSince1970), .real(to.timeIntervalSince1970), .real(at.timeIntervalSince1970),
          .real(at.timeIntervalSince1970), .integer(appId), .text(environment), .text(owner),
        ])
      return db.changes == 1
    }
  }

  public func saveRecoveryPage(
    appId: Int64, environment: String, owner: String, nextPage: String?, counts: RecoveryPageCounts,
    leaseUntil: Date, at: Date
  ) throws -> Bool {
    try with { db in
      try db.query(
        """
        UPDATE app_store_recoveries SET page_token = ?, recovered = recovered + ?, already_known = already_known + ?,
        refused = refused + ?, lease_until = ?, last_call_at = ?, updated_at = ?
        WHERE app_id = ? AND environment = ? AND lease_owner = ?
        """,
        [
          nextPage.map(SQLValue.text) ?? .null, .integer(Int64(counts.recovered)),
          .integer(Int64(counts.alreadyKnown)), .integer(Int64(counts.refused)),
          .real(leaseUntil.timeIntervalSince1970), .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970),
          .integer(appId), .text(environment), .text(owner),
        ])
      return db.changes == 1
    }
  }

  public func finishRecovery(appId: Int64, environment: String, owner: String, _ outcome: RecoveryOutcome, at: Date)
    throws
  {
    let now = SQLValue.real(at.timeIntervalSince1970)
    let key: [SQLValue] = [.integer(appId), .text(environment), .text(owner)]
    try with { db in
      switch outcome {
      case .completed(let next, let from, let to):
        try db.query(
          """
          UPDATE app_store_recoveries SET status = 'scheduled', next_run_at = ?, lease_owner = NULL, lease_until = 0,
          run_start = NULL, run_end = NULL, page_token = NULL, covered_from = ?, covered_to = ?, attempts = 0,
          last_success_at = ?, last_error = NULL, failure = NULL, updated_at = ?
          WHERE app_id = ? AND environment = ? AND lease_owner = ?
          """,
          [
            .real(next.timeIntervalSince1970), .real(from.timeIntervalSince1970), .real(to.timeIntervalSince1970), now,
            now,
          ]
            + key)
      case .retry(let next, let error):
        try db.query(
          """
          UPDATE app_store_recoveries SET next_run_at = ?, lease_owner = NULL, lease_until = 0, attempts = attempts + 1,
          last_error = ?, updated_at = ? WHERE app_id = ? AND environment = ? AND lease_owner = ?
          """, [.real(next.timeIntervalSince1970), .text(error), now] + key)
      case .failed(let failure, let error):
        try db.query(
          """
          UPDATE app_store_recoveries SET status = 'failed', lease_owner = NULL, lease_until = 0, attempts = attempts + 1,
          last_error = ?, failure = ?, updated_at = ? WHERE app_id = ? AND environment = ? AND lease_owner = ?
          """, [.text(error), .text(failure), now] + key)
      }
    }
  }

  public func requestRecovery(appId: Int64, at: Date) throws -> Bool {
    try with { db in
      try db.query(
        """
        UPDATE app_store_recoveries SET status = 'scheduled', next_run_at = ?, attempts = 0, failure = NULL, updated_at = ?
        WHERE app_id = ?
        """, [.real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970), .integer(appId)])
      return db.changes > 0
    }
  }

  public func recoveries(appId: Int64) throws -> [RecoveryJob] {
    try with { db in
      try db.query(
        "SELECT \(Self.recoveryColumns) FROM app_store_recoveries WHERE app_id = ? ORDER BY environment",
        [.integer(appId)]
      ).map(Self.recoveryJob)
    }
  }

  public func latestNotificationReceived(appId: Int64) throws -> Date? {
    try with { db in
      try db.query(
        "SELECT MAX(received_at) AS latest FROM app_store_notifications WHERE app_id = ?", [.integer(appId)]
      ).first?.decode("latest", as: Double?.self).map(Date.init(timeIntervalSince1970:))
    }
  }

  public func requestTestNotification(appId: Int64, environment: String, at: Date) throws {
    try with { db in
      try db.query(
        """
        INSERT INTO app_store_tests (app_id, environment, requested_at) VALUES (?, ?, ?)
        ON CONFLICT (app_id) DO UPDATE SET environment = excluded.environment, requested_at = excluded.requested_at,
        sent_at = NULL, token = NULL, error = NULL
        """, [.integer(appId), .text(environment), .real(at.timeIntervalSince1970)])
    }
  }

  public func pendingTestNotifications() throws -> [TestNotificationRequest] {
    try with { db in
      try db.query(
        "SELECT app_id, environment, requested_at FROM app_store_tests WHERE sent_at IS NULL AND error IS NULL ORDER BY requested_at",
        []
      ).map { row in
        TestNotificationRequest(
          appId: try row.decode("app_id"), environment: try row.decode("environment"),
          requestedAt: try row.decode("requested_at"))
      }
    }
  }

  public func recordTestNotification(appId: Int64, requestedAt: Double, token: String?, error: String?, at: Date)
    throws
  {
    try with { db in
      // Only the request it answers: a newer request stays pending.
      try db.query(
        "UPDATE app_store_tests SET sent_at = ?, token = ?, error = ? WHERE app_id = ? AND requested_at = ?",
        [
          token == nil ? .null : .real(at.timeIntervalSince1970), token.map(SQLValue.text) ?? .null,
          error.map(SQLValue.text) ?? .null, .integer(appId), .real(requestedAt),
        ])
    }
  }

  public func testNotification(appId: Int64) throws -> TestNotificationRequest? {
    try with { db in
      guard
        let row = try db.query(
          "SELECT app_id, environment, requested_at, sent_at, token, error FROM app_store_tests WHERE app_id = ?",
          [.integer(appId)]
        ).first
      else { return nil }
      let requested: Double = try row.decode("requested_at")
      let received = try db.query(
        """
        SELECT MIN(received_at) AS received FROM app_store_notifications WHERE app_id = ? AND notification_type = 'TEST'
        AND received_at >= ?
        """, [.integer(appId), .real(requested)]
      ).first?.decode("received", as: Double?.self)
      return TestNotificationRequest(
        appId: try row.decode("app_id"), environment: try row.decode("environment"), requestedAt: requested,
        sentAt: try row.decode("sent_at"), token: try row.decode("token"), error: try row.decode("error"),
        receivedAt: received)
    }
  }

  public func subscriptionsToReconcile(appId: Int64, environment: String, endedBefore: Date, limit: Int) throws
    -> [String]
  {
    try with { db in
      try db.query(
        """
        SELECT original_transaction_id FROM app_store_subscription_ends WHERE app_id = ? AND environment = ?
        AND period_end < ? AND (checked_at IS NULL OR checked_at < period_end) ORDER BY period_end LIMIT ?
        """,
        [.integer(appId), .text(environment), .real(endedBefore.timeIntervalSince1970), .integer(Int64(limit))]
      ).map { try $0.decode("original_transaction_id") }
    }
  }

  public func markReconciled(appId: Int64, original: String, at: Date) throws {
    try with { db in
      try db.query(
        "UPDATE app_store_subscription_ends SET checked_at = ? WHERE app_id = ? AND original_transaction_id = ?",
        [.real(at.timeIntervalSince1970), .integer(appId), .text(original)])
    }
  }

  public func addReconciled(appId: Int64, environment: String, count: Int) throws {
    guard count > 0 else { return }
    try with { db in
      try db.query(
        "UPDATE app_store_recoveries SET reconciled = reconciled + ? WHERE app_id = ? AND environment = ?",
        [.integer(Int64(count)), .integer(appId), .text(environment)])
    }
  }

  static var refreshColumns: String {
    """
    app_id, profile_id, status, requested_at, requested_by, finished_at, transactions, changed, refused,
    production_revision, sandbox_revision, error
    """
  }

  static func historyRefresh(_ row: SQLRow) throws -> HistoryRefreshRecord {
    HistoryRefreshRecord(
      appId: try row.decode("app_id"), profileId: try row.decode("profile_id"), status: try row.decode("status"),
      requestedAt: try row.decode("requested_at"), requestedBy: try row.decode("requested_by"),
      finishedAt: try row.decode("finished_at"), transactions: try row.decode("transactions"),
      changed: try row.decode("changed"), refused: try row.decode("refused"),
      productionRevision: try row.decode("production_revision"), sandboxRevision: try row.decode("sandbox_revision"),
      error: try row.decode("error"))
  }

  public func requestHistoryRefresh(appId: Int64, profileId: String, by actor: String, running: Bool, at: Date)
    throws -> HistoryRefreshRecord
  {
    try with { db in
      let rows = try db.query(
        """
        INSERT INTO app_store_history_refreshes (app_id, profile_id, status, requested_at, requested_by)
        VALUES (?, ?, ?, ?, ?) ON CONFLICT (app_id, profile_id) DO UPDATE SET status = excluded.status,
        requested_at = excluded.requested_at, requested_by = excluded.requested_by, finished_at = NULL,
        transactions = 0, changed = 0, refused = 0, error = NULL
        RETURNING \(Self.refreshColumns)
        """,
        [
          .integer(appId), .text(profileId), .text(running ? "running" : "requested"), .real(at.timeIntervalSince1970),
          .text(actor),
        ])
      guard let row = rows.first else { throw StoreError.database("INSERT … RETURNING answered no row") }
      return try Self.historyRefresh(row)
    }
  }

  public func claimRequestedRefreshes(limit: Int) throws -> [HistoryRefreshRecord] {
    try with { db in
      try db.transaction {
        let due = try db.query(
          """
          SELECT app_id, profile_id FROM app_store_history_refreshes WHERE status = 'requested'
          ORDER BY requested_at LIMIT ?\(dialect.skipLocked)
          """, [.integer(Int64(limit))])
        return try due.compactMap { row in
          try db.query(
            """
            UPDATE app_store_history_refreshes SET status = 'running' WHERE app_id = ? AND profile_id = ?
            AND status = 'requested' RETURNING \(Self.refreshColumns)
            """, [.integer(try row.decode("app_id")), .text(try row.decode("profile_id"))]
          ).first.map(Self.historyRefresh)
        }
      }
    }
  }

  public func finishHistoryRefresh(_ record: HistoryRefreshRecord) throws {
    try with { db in
      try db.query(
        """
        UPDATE app_store_history_refreshes SET status = ?, finished_at = ?, transactions = ?, changed = ?, refused = ?,
        production_revision = COALESCE(?, production_revision), sandbox_revision = COALESCE(?, sandbox_revision),
        error = ? WHERE app_id = ? AND profile_id = ?
        """,
        [
          .text(record.status), record.finishedAt.map(SQLValue.real) ?? .null, .integer(record.transactions),
          .integer(record.changed), .integer(record.refused),
          record.productionRevision.map(SQLValue.text) ?? .null, record.sandboxRevision.map(SQLValue.text) ?? .null,
          record.error.map(SQLValue.text) ?? .null, .integer(record.appId), .text(record.profileId),
        ])
    }
  }

  public func historyRefresh(appId: Int64, profileId: String) throws -> HistoryRefreshRecord? {
    try with { db in
      try db.query(
        "SELECT \(Self.refreshColumns) FROM app_store_history_refreshes WHERE app_id = ? AND profile_id = ?",
        [.integer(appId), .text(profileId)]
      ).first.map(Self.historyRefresh)
    }
  }

  public func claimRefundRequest(now: Date, leaseUntil: Date) throws -> StoredRefundRequest? {
    let at = SQLValue.real(now.timeIntervalSince1970)
    return try with { db in
      try db.transaction {
        guard
          let due = try db.query(
            """
            SELECT app_id, notification_uuid FROM app_store_refund_requests WHERE status = 'pending'
            AND next_try_at <= ? AND lease_until <= ? ORDER BY next_try_at LIMIT 1\(dialect.skipLocked)
            """, [at, at]
          ).first
        else { return nil }
        return try db.query(
          """
          UPDATE app_store_refund_requests SET lease_until = ?, attempts = attempts + 1
          WHERE app_id = ? AND notification_uuid = ? AND lease_until <= ? RETURNING \(Self.refundRequestColumns)
          """,
          [
            .real(leaseUntil.timeIntervalSince1970), .integer(try due.decode("app_id")),
            .text(try due.decode("notification_uuid")), at,
          ]
        ).first.map(Self.refundRequest)
      }
    }
  }

  public func finishRefundRequest(appId: Int64, notificationUUID: String, _ outcome: RefundAnswerOutcome, at: Date)
    throws
  {
    let key: [SQLValue] = [.integer(appId), .text(notificationUUID)]
    try with { db in
      switch outcome {
      case .answered(let body):
        try db.query(
          """
          UPDATE app_store_refund_requests SET status = 'answered', answer = ?, answered_at = ?, last_error = NULL,
          lease_until = 0 WHERE app_id = ? AND notification_uuid = ?
          """, [.text(body), .real(at.timeIntervalSince1970)] + key)
      case .retry(let next, let error):
        try db.query(
          """
          UPDATE app_store_refund_requests SET next_try_at = ?, last_error = ?, lease_until = 0
          WHERE app_id = ? AND notification_uuid = ?
          """, [.real(next.timeIntervalSince1970), .text(error)] + key)
      case .stopped(let status, let error):
        try db.query(
          """
          UPDATE app_store_refund_requests SET status = ?, last_error = ?, lease_until = 0
          WHERE app_id = ? AND notification_uuid = ?
          """, [.text(status), .text(error)] + key)
      }
    }
  }

  public func refundRequests(appId: Int64, from: Date, to: Date) throws -> [StoredRefundRequest] {
    try with { db in
      let requests = try db.query(
        """
        SELECT \(Self.refundRequestColumns) FROM app_store_refund_requests WHERE app_id = ? AND requested_at >= ?
        AND requested_at < ? ORDER BY requested_at, notification_uuid
        """, [.integer(appId), .real(from.timeIntervalSince1970), .real(to.timeIntervalSince1970)]
      ).map(Self.refundRequest)
      return try requests.map { request in
        var request = request
        request.owners = try db.query(
          """
          SELECT profile_id FROM app_store_owners WHERE app_id = ? AND original_transaction_id = ?
          ORDER BY profile_id
          """, [.integer(appId), .text(request.originalTransactionId)]
        ).map { try $0.decode("profile_id") }
        return request
      }
    }
  }
}
