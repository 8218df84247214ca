import Foundation
import TollgateAPI

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

  public func enqueueAttributions(_ tokens: [QueuedToken]) throws -> [(AttributionJob, created: Bool)] {
    try with { db in
      try db.transaction {
        // Profiles are locked in one order whatever the batch's, so two instances' batches
        // cannot deadlock on each other's rows.
        let order = tokens.indices.sorted {
          (tokens[$0].appId, tokens[$0].profileId) < (tokens[$1].appId, tokens[$1].profileId)
        }
        var stored = [(AttributionJob, created: Bool)?](repeating: nil, count: tokens.count)
        for index in order { stored[index] = try enqueue(db, tokens[index]) }
        return stored.compactMap { $0 }
      }
    }
  }

  private func enqueue(_ db: any SQLConnection, _ queued: QueuedToken) throws -> (AttributionJob, created: Bool) {
    let now = SQLValue.real(queued.at.timeIntervalSince1970)
    let key: [SQLValue] = [.integer(queued.appId), .text(queued.profileId), .text(queued.tokenHash)]
    try db.query(
      """
      INSERT INTO attribution_jobs (\(SQLColumns.job), created_at, updated_at)
      VALUES (?, ?, ?, ?, 'pending', 0, 0, ?, NULL, ?, ?) ON CONFLICT DO NOTHING
      """, key + [.text(queued.token), now, now, now])
    let created = db.changes == 1
    let rows = try db.query(
      "SELECT \(SQLColumns.job) FROM attribution_jobs WHERE app_id = ? AND profile_id = ? AND token_hash = ?", key)
    if created, var profile = try Self.profile(db, appId: queued.appId, id: queued.profileId, lock: dialect.lockRow),
      profile.attribution.status[appleAdsSource] != .applied
    {
      profile.attribution.status[appleAdsSource] = .pending
      try save(db, appId: queued.appId, profile)
    }
    guard let row = rows.first else { throw StoreError.database("the job just recorded is not there") }
    return (try Self.job(row), created)
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

  public func finishAttribution(
    _ job: AttributionJob, _ outcome: AttributionOutcome, at: Date, webhooks: [WebhookConfig]
  ) throws -> ProfileRecord? {
    try with { db in
      try db.transaction { () throws -> ProfileRecord? in
        let key: [SQLValue] = [.integer(job.appId), .text(job.profileId), .text(job.tokenHash)]
        switch outcome {
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
        case .final(let status, let payload, let attempts, let error):
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
            var profile = try Self.profile(db, appId: job.appId, id: job.profileId, lock: dialect.lockRow)
          else {
            return nil
          }
          // Applied is permanent: a later token's failure never takes it back.
          guard profile.attribution.status[appleAdsSource] != .applied else { return nil }
          profile.attribution.status[appleAdsSource] = status
          if status == .applied, let payload {
            profile.attribution.appleAds = AppleAdsRecord(
              payload: payload, test: payload.isDeveloperMode, clickDate: payload.clickDate.flatMap(AppleAdsDate.parse),
              resolvedAt: at)
            if !profile.appliedSources.contains(appleAdsSource) {
              profile.appliedSources = (profile.appliedSources + [appleAdsSource]).sorted()
            }
          }
          profile.version += 1
          profile.updatedAt = at
          try save(db, appId: job.appId, profile)
          if status == .applied, let payload {
            try Self.rollAppleAdsInstall(db, appId: job.appId, profile)
            let data = JSONValue.object(["source": .string(appleAdsSource), "apple_ads": WebhookData.json(payload)])
            try Self.enqueueWebhookEvents(
              db, appId: job.appId, [.init(type: .attributionApplied, profileId: profile.id, data: data)], to: webhooks,
              at: at)
          }
          return profile
        }
      }
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
