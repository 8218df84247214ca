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

  /// Stores a batch in a handful of statements (a statement per table, not per profile: a
  /// round trip per row made PostgreSQL imports crawl). Profiles already here — by id, or by
  /// customer user id under another id, or earlier in the batch — are left as they are. A new
  /// profile has no transaction, view or report yet, so its cohort and Apple Ads install are
  /// known from its own row and rolled up with the batch.
  public func importBatch(appId: Int64, _ profiles: [ImportedProfile], at: Date) throws -> ImportBatchOutcome {
    let app = SQLValue.integer(appId)
    return try with { db in
      try db.transaction {
        if let planWithValues = dialect.planWithValues { try db.execute(planWithValues) }
        var outcome = ImportBatchOutcome()
        var ids: Set<String> = []
        var customers: Set<String> = []
        var candidates: [ImportedProfile] = []
        for imported in profiles {
          let profile = imported.profile
          if ids.insert(profile.id).inserted, profile.customerUserId.map({ customers.insert($0).inserted }) ?? true {
            candidates.append(imported)
          }
        }
        // A customer already here (live, or imported before under another id) is left as it is.
        var taken: Set<String> = []
        let named = candidates.compactMap(\.profile.customerUserId)
        for start in stride(from: 0, to: named.count, by: 500) {
          let chunk = named[start..<min(start + 500, named.count)]
          for row in try db.query(Self.takenCustomers(chunk.count), [app] + chunk.map(SQLValue.text)) {
            taken.insert(try row.decode("customer_user_id"))
          }
        }
        candidates.removeAll { $0.profile.customerUserId.map(taken.contains) ?? false }
        let columns = JSONColumns(remembering: true)
        let inserted = Set(
          try Self.loadRows(
            db, table: "profiles", columns: BulkRows.profileColumns,
            candidates.map { [app] + Self.values($0.profile, encoding: columns) },
            suffix: "ON CONFLICT (app_id, id) DO NOTHING RETURNING id"
          ).map { try $0.decode("id", as: String.self) })
        let fresh = candidates.filter { inserted.contains($0.profile.id) }
        outcome.imported = fresh.count
        outcome.existing = profiles.count - fresh.count
        try Self.loadRows(
          db, table: "imported_profiles", columns: "app_id, profile_id", fresh.map { [app, .text($0.profile.id)] })

        let pending = PendingRollups()
        var installs = AppleAdsProjection.Changes()
        var attributed: [[SQLValue]] = []
        var contributions: [[SQLValue]] = []
        for imported in fresh {
          let profile = imported.profile
          var dimensions = CohortDimensions(
            installDay: StatsDay.of(profile.createdAt), country: profile.install.storeCountry ?? "")
          dimensions.imported = true
          if let payload = profile.attribution.appleAds?.payload, let campaign = payload.campaignId {
            let group = AppleAdsKey(
              day: dimensions.installDay, campaign: campaign, adGroup: payload.adGroupId ?? 0,
              keyword: payload.keywordId ?? 0)
            dimensions.campaignId = group.campaign
            dimensions.adGroupId = group.adGroup
            dimensions.keywordId = group.keyword
            attributed.append([
              app, .text(profile.id), .integer(group.day), .integer(group.campaign), .integer(group.adGroup),
              .integer(group.keyword), .integer(0), .integer(0),
            ])
            AppleAdsProjection.install(group, flowInTime: false, purchaser: false, into: &installs)
          }
          let contribution = CohortContributionRows(
            dimensions: dimensions, rows: CohortContribution.changes(installDay: dimensions.installDay, []))
          for (dimensions, where_, counters) in contribution.changes(from: nil) {
            CohortSegmentRow.add(dimensions, where_, counters, to: &pending.cohorts)
          }
          contributions.append([
            app, .text(profile.id), columns.encode(contribution.dimensions), contribution.storedRows,
          ])
        }
        try Self.loadRows(
          db, table: "stats_aa_profiles",
          columns: "app_id, profile_id, day, campaign_id, ad_group_id, keyword_id, flow_in_time, purchaser",
          attributed)
        try Self.loadRows(
          db, table: "stats_cohort_profiles", columns: "app_id, profile_id, dimensions, changes", contributions)
        try Self.apply(installs, db, appId: appId, pending: pending)
        try Self.write(pending, db, appId: appId)

        let histories: [[SQLValue]] = fresh.compactMap { imported in
          imported.transactionIds.first.map { transaction in
            [
              app, .text(imported.profile.id), .text(imported.environment), .text(transaction), .text("pending"),
              .real(at.timeIntervalSince1970), .real(at.timeIntervalSince1970),
            ]
          }
        }
        outcome.histories =
          try Self.loadRows(
            db, table: "history_imports",
            columns: "app_id, profile_id, environment, transaction_id, status, next_try_at, created_at", histories,
            suffix: "ON CONFLICT DO NOTHING RETURNING profile_id"
          ).count
        return outcome
      }
    }
  }

  /// Which of `count` customer ids the app has. No `customer_user_id IS NOT NULL`: with it
  /// SQLite read the index from the first non-null id on (every named profile of the app, per
  /// chunk) instead of looking each id up; the partial index is still used, `IN` implies it.
  static func takenCustomers(_ count: Int) -> String {
    """
    SELECT customer_user_id FROM profiles WHERE app_id = ?
    AND customer_user_id IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))
    """
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
      if let analyze = dialect.analyzeAfterLoad { try db.execute(analyze) }
    }
  }

  public func profileImport(appId: Int64, id: Int64) throws -> ProfileImportRecord? {
    try with { db in
      try db.query(
        """
        SELECT id, app_id, source, started_at, finished_at, lines, imported, existing, refused, histories, refusals,
        requested_by FROM profile_imports WHERE app_id = ? AND id = ?
        """, [.integer(appId), .integer(id)]
      ).first.map(Self.profileImport)
    }
  }

  public func profileImports(appId: Int64, limit: Int) throws -> [ProfileImportRecord] {
    try with { db in
      try db.query(
        """
        SELECT id, app_id, source, started_at, finished_at, lines, imported, existing, refused, histories,
        '' AS refusals, requested_by FROM profile_imports WHERE app_id = ? ORDER BY id DESC LIMIT ?
        """, [.integer(appId), .integer(Int64(limit))]
      ).map(Self.profileImport)
    }
  }

  public func switchOverDay(appId: Int64) throws -> Int64? {
    try with { db in
      guard try !db.query("SELECT 1 FROM imported_profiles WHERE app_id = ? LIMIT 1", [.integer(appId)]).isEmpty
      else { return nil }
      // From the cohort rollup (a few rows a day), not the profiles (millions).
      return try db.query(
        """
        SELECT MIN(period) AS day FROM stats_cohort_segments
        WHERE app_id = ? AND segment = 'origin' AND grain = 'day' AND value = 'live' AND installs > 0
        """, [.integer(appId)]
      ).first.flatMap { try $0.decode("day", as: Int64?.self) }
    }
  }

  static func profileImport(_ row: SQLRow) throws -> ProfileImportRecord {
    ProfileImportRecord(
      id: try row.decode("id"), appId: try row.decode("app_id"), source: try row.decode("source"),
      startedAt: try row.decode("started_at"), finishedAt: try row.decode("finished_at"),
      lines: try row.decode("lines"), imported: try row.decode("imported"), existing: try row.decode("existing"),
      refused: try row.decode("refused"), histories: try row.decode("histories"),
      refusals: try row.decode("refusals"), requestedBy: try row.decode("requested_by"))
  }

  /// The customers whose history is due, the longest waiting first (parameters: now twice, the
  /// limit; `skipLocked`, the dialect's), read in the order of `history_imports_due`: ordered
  /// past that index's columns, every claim sorted every pending job (5 ms a claim at 10 000,
  /// growing with the import).
  static func dueHistoryImports(skipLocked: String) -> String {
    """
    SELECT app_id, profile_id, environment FROM history_imports WHERE status = 'pending' AND next_try_at <= ?
    AND lease_until <= ? ORDER BY next_try_at, app_id, profile_id, environment LIMIT ?\(skipLocked)
    """
  }

  public func claimHistoryImports(now: Date, leaseUntil: Date, owner: String, limit: Int) throws
    -> [HistoryImportJob]
  {
    let at = SQLValue.real(now.timeIntervalSince1970)
    return try with { db in
      try db.transaction {
        let due = try db.query(
          Self.dueHistoryImports(skipLocked: dialect.skipLocked), [at, at, .integer(Int64(limit))])
        return try due.compactMap { row in
          try db.query(
            """
            UPDATE history_imports SET lease_until = ?, lease_owner = ?, attempts = attempts + 1
            WHERE app_id = ? AND profile_id = ? AND environment = ? AND lease_until <= ?
            RETURNING \(Self.historyImportColumns)
            """,
            [
              .real(leaseUntil.timeIntervalSince1970), .text(owner), .integer(try row.decode("app_id")),
              .text(try row.decode("profile_id")), .text(try row.decode("environment")), at,
            ]
          ).first.map(Self.historyImportJob)
        }
      }
    }
  }

  public func saveHistoryImportPages(_ pages: [HistoryImportPage], owner: String, leaseUntil: Date) throws -> [Bool] {
    try with { db in
      try db.transaction {
        try pages.map { page in
          try db.query(
            """
            UPDATE history_imports SET revision = ?, transactions = transactions + ?, changed = changed + ?,
            refused = refused + ?, lease_until = ? WHERE app_id = ? AND profile_id = ? AND environment = ?
            AND lease_owner = ?
            """,
            [
              .text(page.revision), .integer(Int64(page.transactions)), .integer(Int64(page.changed)),
              .integer(Int64(page.refused)), .real(leaseUntil.timeIntervalSince1970), .integer(page.job.appId),
              .text(page.job.profileId), .text(page.job.environment), .text(owner),
            ])
          return db.changes == 1
        }
      }
    }
  }

  public func finishHistoryImports(_ runs: [(HistoryImportJob, HistoryImportOutcome)], owner: String, at: Date)
    throws
  {
    try with { db in
      try db.transaction {
        for (job, outcome) in runs {
          let key: [SQLValue] = [.integer(job.appId), .text(job.profileId), .text(job.environment), .text(owner)]
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
