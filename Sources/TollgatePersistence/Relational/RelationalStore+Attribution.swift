import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// `AttributionJobRepository` on SQL: tokens are rows, claimed with a lease so a crashed worker's jobs come back.
extension RelationalStore {
  static func job(_ row: SQLRow) throws -> AttributionJob {
    let statusName = try row.decode("status", as: String.self)
    guard let status = AttributionStatus(rawValue: statusName) else {
      throw StoreError.corruptRow("unknown attribution status \(statusName)")
    }
    return AttributionJob(
      appId: try row.decode("app_id"), profileId: try row.decode("profile_id"), tokenHash: try row.decode("token_hash"),
      token: try row.decode("token"), status: status, attempts: try row.decode("attempts"),
      notFound: try row.decode("not_found"), nextAttemptAt: try row.decode("next_attempt_at"),
      lastError: try row.decode("last_error"))
  }

  /// A batch in a handful of statements, whatever its size: one insert of every token, one
  /// read of their jobs, one locking read of the profiles that got a new token, one update of
  /// those (and on PostgreSQL one announcement) — each in chunks of power-of-two sizes, so a
  /// connection prepares at most seven shapes of each statement.
  public func enqueueAttributions(_ tokens: [QueuedToken]) throws -> [(AttributionJob, created: Bool)] {
    guard !tokens.isEmpty else { return [] }
    defer {
      for (appId, group) in Dictionary(grouping: tokens, by: \.appId) {
        profileChanges.announce(appId: appId, group.map(\.profileId))
      }
    }
    return try with { db in
      try db.transaction {
        // Rows are inserted and profiles locked in one order whatever the batch's, so two
        // instances' batches cannot deadlock on each other's rows.
        let keys = Array(Set(tokens.map(JobKey.init))).sorted()
        let first = Dictionary(tokens.map { (JobKey($0), $0) }) { earlier, _ in earlier }
        var created = Set<JobKey>()
        for chunk in Self.chunks(keys.count) {
          let rows = try db.query(
            """
            INSERT INTO attribution_jobs (\(SQLColumns.job), created_at, updated_at) VALUES \(
              Array(repeating: "(?, ?, ?, ?, 'pending', 0, 0, ?, NULL, ?, ?)", count: chunk.count).joined(separator: ", "))
            ON CONFLICT DO NOTHING RETURNING app_id, profile_id, token_hash
            """,
            keys[chunk].flatMap { key -> [SQLValue] in
              let token = first[key]!
              let now = SQLValue.real(token.at.timeIntervalSince1970)
              return key.values + [.text(token.token), now, now, now]
            })
          for row in rows {
            created.insert(
              JobKey(
                appId: try row.decode("app_id"), profileId: try row.decode("profile_id"),
                tokenHash: try row.decode("token_hash")))
          }
        }
        var jobs: [JobKey: AttributionJob] = [:]
        for chunk in Self.chunks(keys.count) {
          let rows = try db.query(
            "SELECT \(SQLColumns.job) FROM attribution_jobs WHERE "
              + Array(repeating: "(app_id = ? AND profile_id = ? AND token_hash = ?)", count: chunk.count)
              .joined(separator: " OR "),
            keys[chunk].flatMap(\.values))
          for row in rows {
            let job = try Self.job(row)
            jobs[JobKey(appId: job.appId, profileId: job.profileId, tokenHash: job.tokenHash)] = job
          }
        }
        try markPending(
          db, profiles: Array(Set(created.map { ProfileKey(appId: $0.appId, id: $0.profileId) })).sorted())
        // The first request with a new token created its job; any other asked for an existing one.
        var answered = Set<JobKey>()
        return try tokens.map { token in
          let key = JobKey(token)
          guard let job = jobs[key] else { throw StoreError.database("the job just recorded is not there") }
          return (job, created: created.contains(key) && answered.insert(key).inserted)
        }
      }
    }
  }

  /// Profiles that just got a token are pending for Apple Ads, unless it applied already.
  private func markPending(_ db: any SQLConnection, profiles keys: [ProfileKey]) throws {
    var changed: [(ProfileKey, ProfileAttribution)] = []
    for chunk in Self.chunks(keys.count) {
      let rows = try db.query(
        "SELECT app_id, id, attribution FROM profiles WHERE "
          + Array(repeating: "(app_id = ? AND id = ?)", count: chunk.count).joined(separator: " OR ")
          + " ORDER BY app_id, id\(dialect.lockRow)",
        keys[chunk].flatMap { [SQLValue.integer($0.appId), .text($0.id)] })
      for row in rows {
        var attribution = try WireCoding.decoder.decode(ProfileAttribution.self, from: try row.decode("attribution"))
        guard attribution.status[appleAdsSource] != .applied else { continue }
        attribution.status[appleAdsSource] = .pending
        changed.append((ProfileKey(appId: try row.decode("app_id"), id: try row.decode("id")), attribution))
      }
    }
    for chunk in Self.chunks(changed.count) {
      let part = changed[chunk]
      if let announce = dialect.announceProfiles(part.count) {
        try db.query(announce, part.map { .text("\($0.0.appId):\($0.0.id)") })
      }
      // Only the attribution column changes (no version bump, no cohort row to move).
      try db.query(
        "UPDATE profiles SET attribution = CASE "
          + Array(repeating: "WHEN app_id = ? AND id = ? THEN ?", count: part.count).joined(separator: " ")
          + " END WHERE "
          + Array(repeating: "(app_id = ? AND id = ?)", count: part.count).joined(separator: " OR "),
        part.flatMap { key, attribution in
          [
            SQLValue.integer(key.appId), .text(key.id),
            .text(String(decoding: WireCoding.encode(attribution), as: UTF8.self)),
          ]
        } + part.flatMap { key, _ in [SQLValue.integer(key.appId), .text(key.id)] })
    }
  }

  /// `0..<count` in chunks of 64, 32, … 1 (largest first).
  static func chunks(_ count: Int) -> [Range<Int>] {
    var result: [Range<Int>] = []
    var start = 0
    var size = 64
    while start < count {
      while size > count - start { size /= 2 }
      result.append(start..<start + size)
      start += size
    }
    return result
  }

  public func claimAttributionJobs(now: Date, lease: TimeInterval, limit: Int) throws -> [AttributionJob] {
    try with { db in
      try db.transaction {
        try db.query(
          dialect.claimJobs,
          [.real(now.timeIntervalSince1970 + lease), .real(now.timeIntervalSince1970), .integer(Int64(limit))]
        ).map(Self.job)
      }
    }
  }

  public var outcomeWriters: Int { dialect.parallelWriters }

  public func finishAttributions(_ finishes: [AttributionFinish], at: Date, webhooks: (Int64) -> [WebhookConfig])
    throws -> [(job: AttributionJob, profile: ProfileRecord)]
  {
    guard !finishes.isEmpty else { return [] }
    // In key order: two workers' batches lock shared profiles in one order, never in a cycle.
    let ordered = finishes.sorted { ($0.job.appId, $0.job.profileId) < ($1.job.appId, $1.job.profileId) }
    defer {
      for (appId, group) in Dictionary(grouping: ordered, by: \.job.appId) {
        profileChanges.announce(appId: appId, group.map(\.job.profileId))
      }
    }
    return try with { db in
      try db.transaction { () throws -> [(job: AttributionJob, profile: ProfileRecord)] in
        var changed: [(job: AttributionJob, profile: ProfileRecord)] = []
        var pending: [Int64: PendingRollups] = [:]
        for finish in ordered {
          let appId = finish.job.appId
          let rollups = pending[appId] ?? PendingRollups()
          pending[appId] = rollups
          if let profile = try store(finish, db, at: at, webhooks: webhooks(appId), pending: rollups) {
            changed.append((finish.job, profile))
          }
        }
        for (appId, rollups) in pending.sorted(by: { $0.key < $1.key }) { try Self.write(rollups, db, appId: appId) }
        return changed
      }
    }
  }

  /// One decision inside `finishAttributions`' transaction; its rollups go to `pending`.
  private func store(
    _ finish: AttributionFinish, _ db: any SQLConnection, at: Date, webhooks: [WebhookConfig], pending: PendingRollups
  ) throws -> ProfileRecord? {
    let job = finish.job
    let key: [SQLValue] = [.integer(job.appId), .text(job.profileId), .text(job.tokenHash)]
    switch finish.outcome {
    case .retry(let next, let attempts, let notFound, let error):
      try db.query(
        """
        UPDATE attribution_jobs SET attempts = ?, not_found = ?, next_attempt_at = ?, last_error = ?, updated_at = ?
        WHERE app_id = ? AND profile_id = ? AND token_hash = ? AND status = 'pending'
        """,
        [
          .integer(Int64(attempts)), .integer(Int64(notFound)), .real(next.timeIntervalSince1970), .text(error),
          .real(at.timeIntervalSince1970),
        ] + key)
      return nil
    case .final(let status, _, let attempts, let error):
      try db.query(
        """
        UPDATE attribution_jobs SET status = ?, token = '', attempts = ?, last_error = ?, updated_at = ?
        WHERE app_id = ? AND profile_id = ? AND token_hash = ? AND status = 'pending'
        """,
        [
          .text(status.rawValue), .integer(Int64(attempts)), error.map(SQLValue.text) ?? .null,
          .real(at.timeIntervalSince1970),
        ]
          + key)
      // Only the transition out of pending touches the profile (exactly once).
      guard db.changes == 1,
        let profile = try Self.profile(db, appId: job.appId, id: job.profileId, lock: dialect.lockRow),
        let settlement = finish.settle(profile)
      else {
        return nil
      }
      try save(db, appId: job.appId, settlement.profile, pending: pending)
      if settlement.installed {
        try Self.rollAppleAdsInstall(db, appId: job.appId, settlement.profile, pending: pending)
      }
      try Self.enqueueWebhookEvents(db, appId: job.appId, settlement.events, to: webhooks, at: at)
      return settlement.profile
    }
  }

  public func attributionQueueDepth() throws -> Int {
    try with { db in
      guard let row = try db.query("SELECT COUNT(*) AS pending FROM attribution_jobs WHERE status = 'pending'").first
      else { throw StoreError.database("COUNT(*) returned no row") }
      return try row.decode("pending")
    }
  }

  /// The app's attribution tokens by status.
  public func attributionFunnel(appId: Int64) throws -> AttributionFunnel {
    try with { db in
      var funnel = AttributionFunnel()
      for row in try db.query(
        "SELECT status, COUNT(*) AS tokens FROM attribution_jobs WHERE app_id = ? GROUP BY status", [.integer(appId)])
      {
        let count = try row.decode("tokens", as: Int64.self)
        funnel.received += count
        switch AttributionStatus(rawValue: try row.decode("status")) {
        case .pending?: funnel.pending += count
        case .applied?: funnel.applied += count
        case .notAttributed?: funnel.notAttributed += count
        case .testIgnored?: funnel.testIgnored += count
        default: funnel.failed += count
        }
      }
      return funnel
    }
  }
}

/// An attribution job's key.
private struct JobKey: Hashable, Comparable {
  let appId: Int64
  let profileId: String
  let tokenHash: String

  init(appId: Int64, profileId: String, tokenHash: String) {
    self.appId = appId
    self.profileId = profileId
    self.tokenHash = tokenHash
  }

  init(_ token: QueuedToken) { self.init(appId: token.appId, profileId: token.profileId, tokenHash: token.tokenHash) }

  var values: [SQLValue] { [.integer(appId), .text(profileId), .text(tokenHash)] }

  static func < (left: JobKey, right: JobKey) -> Bool {
    (left.appId, left.profileId, left.tokenHash) < (right.appId, right.profileId, right.tokenHash)
  }
}

/// A profile's key.
private struct ProfileKey: Hashable, Comparable {
  let appId: Int64
  let id: String

  static func < (left: ProfileKey, right: ProfileKey) -> Bool { (left.appId, left.id) < (right.appId, right.id) }
}
