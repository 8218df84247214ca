import Foundation
import TollgateDomain
import TollgateSupport

extension RelationalStore {
  static var historyImportColumns: String {
    """
    app_id, profile_id, environment, transaction_id, status, revision, transactions, changed, refused, attempts,
    last_error
    """
  }

  static func historyImportJob(_ row: SQLRow) throws -> HistoryImportJob {
    HistoryImportJob(
      appId: try row.decode("app_id"), profileId: try row.decode("profile_id"),
      environment: try row.decode("environment"), transactionId: try row.decode("transaction_id"),
      status: try row.decode("status"), revision: try row.decode("revision"),
      transactions: try row.decode("transactions"), changed: try row.decode("changed"),
      refused: try row.decode("refused"), attempts: try row.decode("attempts"), lastError: try row.decode("last_error"))
  }

  public func beginImport(appId: Int64, source: String, by actor: String, at: Date) throws -> Int64 {
    try with { db in
      let rows = try db.query(
        "INSERT INTO profile_imports (app_id, source, started_at, requested_by) VALUES (?, ?, ?, ?) RETURNING id",
        [.integer(appId), .text(source), .real(at.timeIntervalSince1970), .text(actor)])
      guard let row = rows.first else { throw StoreError.database("INSERT … RETURNING id answered no row") }
      return try row.decode("id")
    }
  }

  public func importBatch(appId: Int64, _ profiles: [ImportedProfile], at: Date) throws -> ImportBatchOutcome {
    try with { db in
      try db.transaction {
        var outcome = ImportBatchOutcome()
        let pending = PendingRollups()
        for imported in profiles {
          let profile = imported.profile
          // A customer already here (live, or imported before under another id) is left as it is.
          if let customer = profile.customerUserId,
            try !db.query(
              "SELECT id FROM profiles WHERE app_id = ? AND customer_user_id = ? AND id <> ? LIMIT 1",
              [.integer(appId), .text(customer), .text(profile.id)]
            ).isEmpty
          {
            outcome.existing += 1
            continue
          }
          try db.query(
            """
            INSERT INTO profiles (app_id, \(SQLColumns.profile)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, id) DO NOTHING
            """, [.integer(appId)] + Self.values(profile))
          guard db.changes == 1 else {
            outcome.existing += 1
            continue
          }
          outcome.imported += 1
          try db.query(
            "INSERT INTO imported_profiles (app_id, profile_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
            [.integer(appId), .text(profile.id)])
          if profile.attribution.appleAds != nil {
            // An install of its campaign on its day, as an attribution applied live is (it rolls the cohort too).
            try Self.rollAppleAdsInstall(db, appId: appId, profile)
          } else {
            try Self.rollCohort(db, appId: appId, profile: profile.id, pending: pending)
          }
          if let transaction = imported.transactionIds.first {
            try db.query(
              """
              INSERT INTO history_imports (app_id, profile_id, environment, transaction_id, status, next_try_at,
              created_at) VALUES (?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT DO NOTHING
              """,
              [
                .integer(appId), .text(profile.id), .text(imported.environment), .text(transaction),
                .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970),
              ])
            outcome.histories += db.changes
          }
        }
        try Self.write(pending, db, appId: appId)
        return outcome
      }
    }
  }

  public func finishImport(_ record: ProfileImportRecord) throws {
    try with { db in
      try db.query(
        """
        UPDATE profile_imports SET finished_at = ?, lines = ?, imported = ?, existing = ?, refused = ?, histories = ?,
        refusals = ? WHERE app_id = ? AND id = ?
        """,
        [
          record.finishedAt.map(SQLValue.real) ?? .null, .integer(record.lines), .integer(record.imported),
          .integer(record.existing), .integer(record.refused), .integer(record.histories), .text(record.refusals),
          .integer(record.appId), .integer(record.id),
        ])
    }
  }

  public func profileImport(appId: Int64, id: Int64) throws -> ProfileImportRecord? {
    try with { db in
      try db.query(
        """
        SELECT id, app_id, source, started_at, finished_at, lines, imported, existing, refused, histories, refusals,
        requested_by FROM profile_imports WHERE app_id = ? AND id = ?
        """, [.integer(appId), .integer(id)]
      ).first.map { row in
        ProfileImportRecord(
          id: try row.decode("id"), appId: try row.decode("app_id"), source: try row.decode("source"),
          startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"),
          lines: try row.decode("lines"), imported: try row.decode("imported"), existing: try row.decode("existing"),
          refused: try row.decode("refused"), histories: try row.decode("histories"),
          refusals: try row.decode("refusals"), requestedBy: try row.decode("requested_by"))
      }
    }
  }

  public func claimHistoryImport(now: Date, leaseUntil: Date, owner: String) throws -> HistoryImportJob? {
    let at = SQLValue.real(now.timeIntervalSince1970)
    return try with { db in
      try db.transaction {
        guard
          let due = try db.query(
            """
            SELECT app_id, profile_id, environment FROM history_imports WHERE status = 'pending' AND next_try_at <= ?
            AND lease_until <= ? ORDER BY next_try_at LIMIT 1\(dialect.skipLocked)
            """, [at, at]
          ).first
        else { return nil }
        return try db.query(
          """
          UPDATE history_imports SET lease_until = ?, lease_owner = ?, attempts = attempts + 1
          WHERE app_id = ? AND profile_id = ? AND environment = ? AND lease_until <= ?
          RETURNING \(Self.historyImportColumns)
          """,
          [
            .real(leaseUntil.timeIntervalSince1970), .text(owner), .integer(try due.decode("app_id")),
            .text(try due.decode("profile_id")), .text(try due.decode("environment")), at,
          ]
        ).first.map(Self.historyImportJob)
      }
    }
  }

  public func saveHistoryImportPage(
    _ job: HistoryImportJob, owner: String, revision: String, transactions: Int, changed: Int, refused: Int,
    leaseUntil: Date
  ) throws -> Bool {
    try with { db in
      try db.query(
        """
        UPDATE history_imports SET revision = ?, transactions = transactions + ?, changed = changed + ?,
        refused = refused + ?, lease_until = ? WHERE app_id = ? AND profile_id = ? AND environment = ?
        AND lease_owner = ?
        """,
        [
          .text(revision), .integer(Int64(transactions)), .integer(Int64(changed)), .integer(Int64(refused)),
          .real(leaseUntil.timeIntervalSince1970), .integer(job.appId), .text(job.profileId), .text(job.environment),
          .text(owner),
        ])
      return db.changes == 1
    }
  }

  public func finishHistoryImport(_ job: HistoryImportJob, owner: String, _ outcome: HistoryImportOutcome, at: Date)
    throws
  {
    let key: [SQLValue] = [.integer(job.appId), .text(job.profileId), .text(job.environment), .text(owner)]
    try with { db in
      switch outcome {
      case .done:
        try db.query(
          """
          UPDATE history_imports SET status = 'done', finished_at = ?, lease_until = 0, last_error = NULL
          WHERE app_id = ? AND profile_id = ? AND environment = ? AND lease_owner = ?
          """, [.real(at.timeIntervalSince1970)] + key)
      case .retry(let next, let error):
        try db.query(
          """
          UPDATE history_imports SET next_try_at = ?, last_error = ?, lease_until = 0
          WHERE app_id = ? AND profile_id = ? AND environment = ? AND lease_owner = ?
          """, [.real(next.timeIntervalSince1970), .text(error)] + key)
      case .failed(let error):
        try db.query(
          """
          UPDATE history_imports SET status = 'failed', finished_at = ?, last_error = ?, lease_until = 0
          WHERE app_id = ? AND profile_id = ? AND environment = ? AND lease_owner = ?
          """, [.real(at.timeIntervalSince1970), .text(error)] + key)
      }
    }
  }

  public func historyImportProgress(appId: Int64) throws -> HistoryImportProgress {
    try with { db in
      let row = try db.query(
        """
        SELECT COUNT(*) AS customers,
          COALESCE(SUM(CASE WHEN status = 'done' THEN 1 ELSE 0 END), 0) AS done,
          COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0) AS failed,
          COALESCE(SUM(CASE WHEN status = 'pending' THEN 1 ELSE 0 END), 0) AS pending,
          COALESCE(SUM(transactions), 0) AS transactions, COALESCE(SUM(refused), 0) AS refused,
          MIN(created_at) AS started_at, MAX(finished_at) AS last_finished_at
        FROM history_imports WHERE app_id = ?
        """, [.integer(appId)]
      ).first
      let lastError = try db.query(
        """
        SELECT last_error FROM history_imports WHERE app_id = ? AND last_error IS NOT NULL
        ORDER BY next_try_at DESC LIMIT 1
        """, [.integer(appId)]
      ).first.map { try $0.decode("last_error", as: String.self) }
      guard let row else { throw StoreError.database("an aggregate answered no row") }
      return HistoryImportProgress(
        customers: try row.decode("customers"), done: try row.decode("done"), failed: try row.decode("failed"),
        pending: try row.decode("pending"), transactions: try row.decode("transactions"),
        refused: try row.decode("refused"), startedAt: try row.decode("started_at"),
        lastFinishedAt: try row.decode("last_finished_at"), lastError: lastError)
    }
  }

  public func profileCount(appId: Int64) throws -> Int {
    try with { db in
      guard
        let row = try db.query("SELECT COUNT(*) AS profiles FROM profiles WHERE app_id = ?", [.integer(appId)]).first
      else { return 0 }
      return Int(try row.decode("profiles", as: Int64.self))
    }
  }
}
