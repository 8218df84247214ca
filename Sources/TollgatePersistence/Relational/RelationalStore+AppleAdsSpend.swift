import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `AppleAdsSpendRepository` on SQL: spend rows keyed by level, day and entity; the import job
/// is one row per app, leased like attribution jobs so one instance imports an app at a time.
extension RelationalStore {
  static var spendColumns: String {
    "level, day, campaign_id, ad_group_id, keyword_id, currency, spend, impressions, taps, tap_installs, total_installs"
  }
  static var importColumns: String {
    """
    app_id, status, next_run_at, lease_owner, lease_until, run_first_day, run_last_day, cursor_day, backfilled,
    attempts, rows_imported, last_run_at, last_success_at, last_error, failure, rows_skipped, last_skipped,
    lease_renewed_at
    """
  }

  static func spendFigure(_ row: SQLRow) throws -> SpendFigure {
    let levelName = try row.decode("level", as: String.self)
    guard let level = SpendLevel(rawValue: levelName) else { throw StoreError.corruptRow("unknown level \(levelName)") }
    return SpendFigure(
      level: level, day: try row.decode("day"), campaignId: try row.decode("campaign_id"),
      adGroupId: try row.decode("ad_group_id"), keywordId: try row.decode("keyword_id"),
      currency: try row.decode("currency"), spend: try row.decode("spend"), impressions: try row.decode("impressions"),
      taps: try row.decode("taps"), tapInstalls: try row.decode("tap_installs"),
      totalInstalls: try row.decode("total_installs"))
  }

  static func importJob(_ row: SQLRow) throws -> SpendImportJob {
    let statusName = try row.decode("status", as: String.self)
    guard let status = SpendImportJob.Status(rawValue: statusName) else {
      throw StoreError.corruptRow("unknown import status \(statusName)")
    }
    return SpendImportJob(
      appId: try row.decode("app_id"), status: status, nextRunAt: try row.decode("next_run_at"),
      leaseOwner: try row.decode("lease_owner"), leaseUntil: try row.decode("lease_until"),
      runFirstDay: try row.decode("run_first_day"), runLastDay: try row.decode("run_last_day"),
      cursorDay: try row.decode("cursor_day"), backfilled: try row.decode("backfilled", as: Int64.self) != 0,
      attempts: try row.decode("attempts"), rowsImported: try row.decode("rows_imported"),
      lastRunAt: try row.decode("last_run_at"), lastSuccessAt: try row.decode("last_success_at"),
      lastError: try row.decode("last_error"), failure: try row.decode("failure"),
      rowsSkipped: try row.decode("rows_skipped"), lastSkipped: try row.decode("last_skipped"),
      leaseRenewedAt: try row.decode("lease_renewed_at"))
  }

  public func saveAdsCredentials(appId: Int64, sealedKey: String, keyFingerprint: String, at: Date) throws {
    let now = SQLValue.real(at.timeIntervalSince1970)
    try with { db in
      try db.transaction {
        try db.query(
          """
          INSERT INTO apple_ads_credentials (app_id, sealed_key, key_fingerprint, created_at, last_used_at)
          VALUES (?, ?, ?, ?, NULL) ON CONFLICT (app_id) DO UPDATE SET sealed_key = excluded.sealed_key,
          key_fingerprint = excluded.key_fingerprint, created_at = excluded.created_at, last_used_at = NULL
          """, [.integer(appId), .text(sealedKey), .text(keyFingerprint), now])
        // A run in progress keeps its cursor: the new key continues it.
        try db.query(
          """
          INSERT INTO apple_ads_imports (app_id, status, next_run_at, updated_at) VALUES (?, 'scheduled', ?, ?)
          ON CONFLICT (app_id) DO UPDATE SET status = 'scheduled', next_run_at = excluded.next_run_at, attempts = 0,
          failure = NULL, updated_at = excluded.updated_at
          """, [.integer(appId), now, now])
      }
    }
  }

  public func deleteAdsCredentials(appId: Int64) throws -> Bool {
    try with { db in
      try db.transaction {
        try db.query("DELETE FROM apple_ads_imports WHERE app_id = ?", [.integer(appId)])
        try db.query("DELETE FROM apple_ads_credentials WHERE app_id = ?", [.integer(appId)])
        return db.changes == 1
      }
    }
  }

  public func adsCredentials(appId: Int64) throws -> StoredAdsCredentials? {
    try with { db in
      try db.query(
        "SELECT sealed_key, key_fingerprint, created_at, last_used_at FROM apple_ads_credentials WHERE app_id = ?",
        [.integer(appId)]
      ).first.map { row in
        StoredAdsCredentials(
          sealedKey: try row.decode("sealed_key"), keyFingerprint: try row.decode("key_fingerprint"),
          createdAt: try row.decode("created_at"), lastUsedAt: try row.decode("last_used_at"))
      }
    }
  }

  public func markAdsCredentialsUsed(appId: Int64, at: Date) throws {
    try with { db in
      try db.query(
        "UPDATE apple_ads_credentials SET last_used_at = ? WHERE app_id = ?",
        [.real(at.timeIntervalSince1970), .integer(appId)])
    }
  }

  public func claimSpendImport(now: Date, leaseUntil: Date, owner: String) throws -> SpendImportJob? {
    try with { db in
      try db.transaction {
        try db.query(
          """
          UPDATE apple_ads_imports SET lease_owner = ?, lease_until = ?, lease_renewed_at = ?
          WHERE app_id IN (SELECT app_id FROM apple_ads_imports WHERE status = 'scheduled' AND next_run_at <= ?
                           AND lease_until <= ? ORDER BY next_run_at LIMIT 1\(dialect.skipLocked))
          RETURNING \(Self.importColumns)
          """,
          [
            .text(owner), .real(leaseUntil.timeIntervalSince1970), .real(now.timeIntervalSince1970),
            .real(now.timeIntervalSince1970), .real(now.timeIntervalSince1970),
          ]
        ).first.map(Self.importJob)
      }
    }
  }

  public func beginSpendImportRun(appId: Int64, owner: String, days: ClosedRange<Int64>, at: Date) throws -> Bool {
    try with { db in
      try db.query(
        """
        UPDATE apple_ads_imports SET run_first_day = ?, run_last_day = ?, cursor_day = ?, last_run_at = ?, updated_at = ?
        WHERE app_id = ? AND lease_owner = ?
        """,
        [
          .integer(days.lowerBound), .integer(days.upperBound), .integer(days.lowerBound),
          .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970), .integer(appId), .text(owner),
        ])
      return db.changes == 1
    }
  }

  public func renewSpendImportLease(appId: Int64, owner: String, until: Date, at: Date) throws -> Bool {
    try with { db in
      try db.query(
        "UPDATE apple_ads_imports SET lease_until = ?, lease_renewed_at = ? WHERE app_id = ? AND lease_owner = ?",
        [.real(until.timeIntervalSince1970), .real(at.timeIntervalSince1970), .integer(appId), .text(owner)])
      return db.changes == 1
    }
  }

  public func storeSpendWindow(
    appId: Int64, owner: String, days: ClosedRange<Int64>, figures: [SpendFigure], names: [AdsEntityName],
    skipped: [String], leaseUntil: Date, at: Date
  ) throws -> Bool {
    try with { db in
      try db.transaction {
        // The cursor moves only under our lease; if it moved, nothing below is written.
        try db.query(
          """
          UPDATE apple_ads_imports SET cursor_day = ?, lease_until = ?, lease_renewed_at = ?, attempts = 0,
          rows_imported = rows_imported + ?, rows_skipped = rows_skipped + ?,
          last_skipped = COALESCE(?, last_skipped), updated_at = ?
          WHERE app_id = ? AND lease_owner = ? AND cursor_day = ?
          """,
          [
            .integer(days.upperBound + 1), .real(leaseUntil.timeIntervalSince1970), .real(at.timeIntervalSince1970),
            .integer(Int64(figures.count)), .integer(Int64(skipped.count)), skipped.last.map(SQLValue.text) ?? .null,
            .real(at.timeIntervalSince1970), .integer(appId), .text(owner), .integer(days.lowerBound),
          ])
        guard db.changes == 1 else { return false }
        // Apple revises recent days: what it says now replaces what it said before.
        try db.query(
          "DELETE FROM apple_ads_spend WHERE app_id = ? AND source = 'api' AND day >= ? AND day <= ?",
          [.integer(appId), .integer(days.lowerBound), .integer(days.upperBound)])
        try Self.upsertSpend(db, appId: appId, figures, names: names, source: .api, at: at)
        return true
      }
    }
  }

  static func upsertSpend(
    _ db: any SQLConnection, appId: Int64, _ figures: [SpendFigure], names: [AdsEntityName], source: SpendSource,
    at: Date
  ) throws {
    let now = SQLValue.real(at.timeIntervalSince1970)
    // Sorted, so concurrent writers lock rows in the same order.
    let sorted = figures.sorted {
      ($0.level.rawValue, $0.day, $0.campaignId, $0.adGroupId, $0.keywordId)
        < ($1.level.rawValue, $1.day, $1.campaignId, $1.adGroupId, $1.keywordId)
    }
    for chunk in stride(from: 0, to: sorted.count, by: 500).map({ sorted[$0..<min($0 + 500, sorted.count)] }) {
      let tuple = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
      try db.query(
        """
        INSERT INTO apple_ads_spend (app_id, \(spendColumns), source, updated_at)
        VALUES \(Array(repeating: tuple, count: chunk.count).joined(separator: ", "))
        ON CONFLICT (app_id, level, day, campaign_id, ad_group_id, keyword_id) DO UPDATE SET
        currency = excluded.currency, spend = excluded.spend, impressions = excluded.impressions, taps = excluded.taps,
        tap_installs = excluded.tap_installs, total_installs = excluded.total_installs, source = excluded.source,
        updated_at = excluded.updated_at
        """,
        chunk.flatMap { figure -> [SQLValue] in
          [
            .integer(appId), .text(figure.level.rawValue), .integer(figure.day), .integer(figure.campaignId),
            .integer(figure.adGroupId), .integer(figure.keywordId), .text(figure.currency), .integer(figure.spend),
            .integer(figure.impressions), .integer(figure.taps), .integer(figure.tapInstalls),
            .integer(figure.totalInstalls), .text(source.rawValue), now,
          ]
        })
    }
    var latest: [String: AdsEntityName] = [:]
    for name in names { latest["\(name.level.rawValue)/\(name.id)"] = name }
    let unique = latest.values.sorted { ($0.level.rawValue, $0.id) < ($1.level.rawValue, $1.id) }
    for chunk in stride(from: 0, to: unique.count, by: 500).map({ unique[$0..<min($0 + 500, unique.count)] }) {
      try db.query(
        """
        INSERT INTO apple_ads_names (app_id, level, entity_id, name, updated_at)
        VALUES \(Array(repeating: "(?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", "))
        ON CONFLICT (app_id, level, entity_id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at
        """,
        chunk.flatMap { name -> [SQLValue] in
          [.integer(appId), .text(name.level.rawValue), .integer(name.id), .text(name.name), now]
        })
    }
  }

  public func finishSpendImport(
    appId: Int64, owner: String, _ outcome: SpendImportOutcome, events: [PendingWebhookEvent],
    webhooks: [WebhookConfig], at: Date
  ) throws {
    let now = SQLValue.real(at.timeIntervalSince1970)
    let key: [SQLValue] = [.integer(appId), .text(owner)]
    try with { db in
      try db.transaction {
        switch outcome {
        case .completed(let next):
          try db.query(
            """
            UPDATE apple_ads_imports SET status = 'scheduled', next_run_at = ?, lease_owner = NULL, lease_until = 0, lease_renewed_at = NULL,
            run_first_day = NULL, run_last_day = NULL, cursor_day = NULL, backfilled = 1, attempts = 0,
            last_success_at = ?, last_error = NULL, failure = NULL, updated_at = ?
            WHERE app_id = ? AND lease_owner = ?
            """, [.real(next.timeIntervalSince1970), now, now] + key)
        case .retry(let next, let error):
          try db.query(
            """
            UPDATE apple_ads_imports SET next_run_at = ?, lease_owner = NULL, lease_until = 0, lease_renewed_at = NULL,
            attempts = attempts + 1,
            last_error = ?, updated_at = ? WHERE app_id = ? AND lease_owner = ?
            """, [.real(next.timeIntervalSince1970), .text(error), now] + key)
        case .failed(let failure, let error):
          try db.query(
            """
            UPDATE apple_ads_imports SET status = 'failed', lease_owner = NULL, lease_until = 0, lease_renewed_at = NULL,
            attempts = attempts + 1,
            last_error = ?, failure = ?, updated_at = ? WHERE app_id = ? AND lease_owner = ?
            """, [.text(error), .text(failure), now] + key)
        }
        // The run was still this owner's: its events go out with it.
        guard db.changes == 1 else { return }
        try Self.enqueueWebhookEvents(db, appId: appId, events, to: webhooks, at: at)
      }
    }
  }

  public func requestSpendImport(appId: Int64, at: Date) throws -> Bool {
    try with { db in
      try db.query(
        """
        UPDATE apple_ads_imports SET status = 'scheduled', next_run_at = ?, attempts = 0, failure = NULL, updated_at = ?
        WHERE app_id = ?
        """, [.real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970), .integer(appId)])
      return db.changes == 1
    }
  }

  public func nextSpendImportDue() throws -> Date? {
    try with { db in
      try db.query(
        """
        SELECT MIN(CASE WHEN lease_until > next_run_at THEN lease_until ELSE next_run_at END) AS due
        FROM apple_ads_imports WHERE status = 'scheduled'
        """
      ).first?.decode("due", as: Date?.self)
    }
  }

  public func spendImportJob(appId: Int64) throws -> SpendImportJob? {
    try with { db in
      try db.query("SELECT \(Self.importColumns) FROM apple_ads_imports WHERE app_id = ?", [.integer(appId)]).first
        .map(Self.importJob)
    }
  }

  public func importSpendFile(appId: Int64, figures: [SpendFigure], names: [AdsEntityName], at: Date) throws {
    try with { db in
      try db.transaction { try Self.upsertSpend(db, appId: appId, figures, names: names, source: .file, at: at) }
    }
  }

  public func spendFigures(appId: Int64, days: ClosedRange<Int64>) throws -> [SpendFigure] {
    try with { db in
      try db.query(
        """
        SELECT \(Self.spendColumns) FROM apple_ads_spend WHERE app_id = ? AND day >= ? AND day <= ?
        ORDER BY level, day, campaign_id, ad_group_id, keyword_id
        """, [.integer(appId), .integer(days.lowerBound), .integer(days.upperBound)]
      ).map(Self.spendFigure)
    }
  }

  public func adsEntityNames(appId: Int64) throws -> [AdsEntityName] {
    try with { db in
      try db.query(
        "SELECT level, entity_id, name FROM apple_ads_names WHERE app_id = ? ORDER BY level, entity_id",
        [.integer(appId)]
      ).map { row in
        let levelName = try row.decode("level", as: String.self)
        guard let level = SpendLevel(rawValue: levelName) else {
          throw StoreError.corruptRow("unknown level \(levelName)")
        }
        return AdsEntityName(level: level, id: try row.decode("entity_id"), name: try row.decode("name"))
      }
    }
  }
}
