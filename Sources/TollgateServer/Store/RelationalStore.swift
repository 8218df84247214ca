import Foundation
import TollgateAPI

/// A store on an SQL database: every `Store` method, written once for SQLite and
/// PostgreSQL. Statements use `?` placeholders and bound values only, never text built
/// from input; the dialect supplies the few statements that differ.
protocol RelationalStore: Store, AnyObject {
  var pool: ConnectionPool { get }
  /// Profiles kept in memory (nil: none).
  var profileCache: ProfileCache? { get }
  /// Connections for writes that may skip waiting for the disk (see `assign`).
  var relaxedPool: ConnectionPool { get }
  /// Writes first-time assignments in batches (with the profile cache only).
  var assignmentWriter: AssignmentWriter? { get }
  var dialect: SQLDialect { get }
}

/// What differs between SQL engines.
struct SQLDialect: Sendable {
  /// Appended to a SELECT that reads a row the transaction will update.
  let lockRow: String
  /// Run first in a transaction whose commit need not wait for the disk.
  let relaxTransaction: String?
  /// Appended to a claiming subquery so concurrent workers skip each other's rows.
  let skipLocked: String
  /// Tells other instances, inside the changing transaction, that a profile changed
  /// (parameter: `appId:profileId`); nil where one process owns the database.
  var announceProfile: String? = nil
  /// Claims due attribution jobs: parameters (lease end, now, limit); returns job columns.
  let claimJobs: String
}

extension RelationalStore {
  @discardableResult
  func with<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
    try pool.with(body)
  }

  public func close() {
    assignmentWriter?.close()
    relaxedPool.close()
    pool.close()
  }

  public var assignmentWrites: (pending: Int, written: Int, dropped: Int)? { assignmentWriter?.figures }

  /// The batch writer for a store with a profile cache; call `attachAssignmentWriter` once built.
  static func makeAssignmentWriter(_ cache: ProfileCache?) -> AssignmentWriter? {
    guard cache != nil else { return nil }
    return AssignmentWriter(failed: { error in
      Logger().warn("assignments not stored yet (retrying): \(error)")
    })
  }

  func attachAssignmentWriter() {
    assignmentWriter?.attach { [weak self] batch in try self?.storeAssignments(batch) }
  }

  // MARK: Apps and keys

  public func createApp(name: String) throws -> AppRecord {
    try with { db in
      try db.transaction {
        guard try db.query("SELECT 1 FROM apps WHERE name = ?", [.text(name)]).isEmpty else {
          throw StoreError.appExists(name)
        }
        let rows = try db.query(
          "INSERT INTO apps (name, revision, created_at) VALUES (?, 0, ?) RETURNING id",
          [.text(name), .real(Date().timeIntervalSince1970)])
        guard let row = rows.first else { throw StoreError.database("INSERT … RETURNING id answered no row") }
        return AppRecord(id: try row.decode("id"), name: name, revision: 0)
      }
    }
  }

  public func app(named name: String) throws -> AppRecord? {
    try with { db in
      try db.query("SELECT id, name, revision FROM apps WHERE name = ?", [.text(name)])
        .first.map(Self.app)
    }
  }

  public func app(id: Int64) throws -> AppRecord? {
    try with { db in
      try db.query("SELECT id, name, revision FROM apps WHERE id = ?", [.integer(id)])
        .first.map(Self.app)
    }
  }

  static func app(_ row: SQLRow) throws -> AppRecord {
    AppRecord(id: try row.decode("id"), name: try row.decode("name"), revision: try row.decode("revision"))
  }

  public func revisions() throws -> [Int64: Int64] {
    try with { db in
      var result: [Int64: Int64] = [:]
      for row in try db.query("SELECT id, revision FROM apps") {
        result[try row.decode("id", as: Int64.self)] = try row.decode("revision", as: Int64.self)
      }
      return result
    }
  }

  public func addKey(appId: Int64, kind: KeyKind, hash: String, at: Date, label: String?) throws {
    try with { db in
      try db.query(
        "INSERT INTO api_keys (hash, app_id, kind, created_at, label) VALUES (?, ?, ?, ?, ?)",
        [
          .text(hash), .integer(appId), .text(kind.rawValue), .real(at.timeIntervalSince1970),
          label.map(SQLValue.text) ?? .null,
        ])
    }
  }

  static var keyColumns: String { "hash, app_id, kind, created_at, label, revoked_at, last_used_at" }

  static func keyRecord(_ row: SQLRow) throws -> KeyRecord {
    let kindName = try row.decode("kind", as: String.self)
    guard let kind = KeyKind(rawValue: kindName) else { throw StoreError.corruptRow("unknown key kind \(kindName)") }
    return KeyRecord(
      appId: try row.decode("app_id"), kind: kind, id: KeyRecord.id(hash: try row.decode("hash")),
      revokedAt: try row.decode("revoked_at"), lastUsedAt: try row.decode("last_used_at"),
      createdAt: try row.decode("created_at"), label: try row.decode("label"))
  }

  public func key(hash: String) throws -> KeyRecord? {
    try with { db in
      try db.query("SELECT \(Self.keyColumns) FROM api_keys WHERE hash = ?", [.text(hash)]).first.map(
        Self.keyRecord)
    }
  }

  public func keys(appId: Int64) throws -> [KeyRecord] {
    try with { db in
      try db.query(
        "SELECT \(Self.keyColumns) FROM api_keys WHERE app_id = ? ORDER BY created_at, hash", [.integer(appId)]
      ).map(Self.keyRecord)
    }
  }

  public func revokeKey(appId: Int64, id: String, at: Date) throws -> KeyRecord? {
    guard id.hasPrefix("key_"), id.count == 20 else { return nil }
    let prefix = String(id.dropFirst(4))
    return try with { db in
      try db.transaction {
        try db.query(
          "UPDATE api_keys SET revoked_at = ? WHERE app_id = ? AND substr(hash, 1, 16) = ? AND revoked_at IS NULL",
          [.real(at.timeIntervalSince1970), .integer(appId), .text(prefix)])
        return try db.query(
          "SELECT \(Self.keyColumns) FROM api_keys WHERE app_id = ? AND substr(hash, 1, 16) = ?",
          [.integer(appId), .text(prefix)]
        ).first.map(Self.keyRecord)
      }
    }
  }

  public func touchKey(hash: String, at: Date) throws {
    try with { db in
      try db.query(
        "UPDATE api_keys SET last_used_at = ? WHERE hash = ?", [.real(at.timeIntervalSince1970), .text(hash)])
    }
  }

  // MARK: Audit log

  public func audit(appId: Int64, _ entry: AuditRecord) throws {
    try with { db in
      try db.query(
        "INSERT INTO audit_log (app_id, at, actor, action, detail) VALUES (?, ?, ?, ?, ?)",
        [
          .integer(appId), .real(entry.at.timeIntervalSince1970), .text(entry.actor), .text(entry.action),
          .text(entry.detail),
        ])
    }
  }

  public func auditLog(appId: Int64, before: Int64?, limit: Int) throws -> [AuditRecord] {
    try with { db in
      try db.query(
        """
        SELECT seq, at, actor, action, detail FROM audit_log WHERE app_id = ? AND seq < ?
        ORDER BY seq DESC LIMIT ?
        """, [.integer(appId), .integer(before ?? Int64.max), .integer(Int64(limit))]
      ).map { row in
        AuditRecord(
          seq: try row.decode("seq"), at: try row.decode("at"), actor: try row.decode("actor"),
          action: try row.decode("action"), detail: try row.decode("detail"))
      }
    }
  }

  // MARK: Configuration

  public func applyConfig(appId: Int64, document: Data, at: Date, by: String?, summary: String?) throws -> Int64 {
    try with { db in
      try db.transaction {
        let rows = try db.query(
          "UPDATE apps SET revision = revision + 1 WHERE id = ? RETURNING revision",
          [.integer(appId)])
        guard let revision = try rows.first?.decode("revision", as: Int64.self) else {
          throw StoreError.database("no app with id \(appId)")
        }
        try db.query(
          "INSERT INTO configs (app_id, revision, document, applied_at, applied_by, summary) VALUES (?, ?, ?, ?, ?, ?)",
          [
            .integer(appId), .integer(revision), .blob(document), .real(at.timeIntervalSince1970),
            by.map(SQLValue.text) ?? .null, summary.map(SQLValue.text) ?? .null,
          ])
        if let announce = dialect.announceProfile {
          try db.query(announce, [.text(ProfileChangeListener.configPrefix + String(appId))])
        }
        return revision
      }
    }
  }

  public func configHistory(appId: Int64, limit: Int) throws -> [ConfigRevisionRecord] {
    try with { db in
      try db.query(
        """
        SELECT revision, applied_at, applied_by, summary FROM configs WHERE app_id = ?
        ORDER BY revision DESC LIMIT ?
        """, [.integer(appId), .integer(Int64(limit))]
      ).map { row in
        ConfigRevisionRecord(
          revision: try row.decode("revision"), appliedAt: try row.decode("applied_at"),
          appliedBy: try row.decode("applied_by"), summary: try row.decode("summary"))
      }
    }
  }

  public func config(appId: Int64, revision: Int64) throws -> ConfigRecord? {
    try with { db in
      try db.query(
        "SELECT revision, document, applied_at FROM configs WHERE app_id = ? AND revision = ?",
        [.integer(appId), .integer(revision)]
      ).first.map(Self.configRecord)
    }
  }

  public func currentConfig(appId: Int64) throws -> ConfigRecord? {
    try with { db in
      try db.query(
        """
        SELECT c.revision, c.document, c.applied_at FROM configs c
        JOIN apps a ON a.id = c.app_id AND a.revision = c.revision WHERE c.app_id = ?
        """, [.integer(appId)]
      ).first.map(Self.configRecord)
    }
  }

  static func configRecord(_ row: SQLRow) throws -> ConfigRecord {
    ConfigRecord(
      revision: try row.decode("revision"), document: try row.decode("document"),
      appliedAt: try row.decode("applied_at"))
  }

  // MARK: Profiles

  public func insertProfile(appId: Int64, _ profile: ProfileRecord) throws -> (
    ProfileRecord, created: Bool
  ) {
    try with { db in
      try db.transaction {
        try db.query(
          """
          INSERT INTO profiles (app_id, \(SQLColumns.profile)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (app_id, id) DO NOTHING
          """, [.integer(appId)] + Self.values(profile))
        let created = db.changes == 1
        guard let stored = try Self.profile(db, appId: appId, id: profile.id) else {
          throw StoreError.database("profile vanished inside its transaction")
        }
        return (stored, created)
      }
    }
  }

  public func importProfiles(appId: Int64, _ profiles: [ProfileRecord]) throws -> Int {
    try with { db in
      try db.transaction {
        var inserted = 0
        for profile in profiles {
          try db.query(
            """
            INSERT INTO profiles (app_id, \(SQLColumns.profile)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, id) DO NOTHING
            """, [.integer(appId)] + Self.values(profile))
          inserted += db.changes
        }
        return inserted
      }
    }
  }

  public func profile(appId: Int64, id: String) throws -> ProfileRecord? {
    guard let cache = profileCache else { return try with { db in try Self.profile(db, appId: appId, id: id) } }
    // Read with its assignments, so resolving its placements needs no further read.
    return try cache.profile(appId: appId, id: id) {
      try with { db in
        guard let profile = try Self.profile(db, appId: appId, id: id) else { return nil }
        var assignments: [ProfileCache.Slot: String] = [:]
        for row in try db.query(
          "SELECT placement_id, audience_id, variation_id FROM assignments WHERE app_id = ? AND profile_id = ?",
          [.integer(appId), .text(id)])
        {
          assignments[try Self.slot(row)] = try row.decode("variation_id")
        }
        return (profile, assignments)
      }
    }
  }

  /// Reads profiles into the cache (with their assignments) in key order, a page at a time,
  /// until it is full or every profile is in; returns how many were read. Run at start so
  /// the first requests after a restart find their profiles in memory.
  @discardableResult
  public func warmProfileCache(pageSize: Int = 2_000) throws -> Int { try warmPages(pageSize: pageSize) }

  func warmPages(pageSize: Int) throws -> Int {
    guard let cache = profileCache else { return 0 }
    var after: (Int64, String) = (Int64.min, "")
    var read = 0
    while true {
      let mark = cache.mark()
      let page = try with { db -> [(appId: Int64, profile: ProfileRecord, assignments: [ProfileCache.Slot: String])] in
        let rows = try db.query(
          """
          SELECT app_id, \(SQLColumns.profile) FROM profiles WHERE (app_id, id) > (?, ?)
          ORDER BY app_id, id LIMIT ?
          """, [.integer(after.0), .text(after.1), .integer(Int64(pageSize))])
        guard let first = rows.first, let last = rows.last else { return [] }
        var assignments: [ProfileCache.Key: [ProfileCache.Slot: String]] = [:]
        for row in try db.query(
          """
          SELECT app_id, profile_id, placement_id, audience_id, variation_id FROM assignments
          WHERE (app_id, profile_id) >= (?, ?) AND (app_id, profile_id) <= (?, ?)
          """,
          [
            .integer(try first.decode("app_id")), .text(try first.decode("id")), .integer(try last.decode("app_id")),
            .text(try last.decode("id")),
          ])
        {
          let key = ProfileCache.Key(appId: try row.decode("app_id"), id: try row.decode("profile_id"))
          assignments[key, default: [:]][try Self.slot(row)] = try row.decode("variation_id")
        }
        return try rows.map { row in
          let appId = try row.decode("app_id", as: Int64.self)
          let profile = try Self.decodeProfile(row)
          return (appId, profile, assignments[ProfileCache.Key(appId: appId, id: profile.id)] ?? [:])
        }
      }
      guard let last = page.last else { return read }
      read += page.count
      after = (last.appId, last.profile.id)
      guard cache.fill(page, since: mark) else { return read }
    }
  }

  /// The experiment slot of an `assignments` row.
  static func slot(_ row: SQLRow) throws -> ProfileCache.Slot {
    ProfileCache.Slot(placementId: try row.decode("placement_id"), audienceId: try row.decode("audience_id"))
  }

  /// After a commit that changed these profiles: this instance forgets them (others heard
  /// the announcement made inside the transaction).
  func changed(appId: Int64, _ ids: [String]) {
    guard let cache = profileCache else { return }
    for id in ids { cache.invalidate(appId: appId, id: id) }
  }

  public func profile(appId: Int64, customerUserId: String) throws -> ProfileRecord? {
    try with { db in
      guard
        let id = try db.query(
          "SELECT id FROM profiles WHERE app_id = ? AND customer_user_id = ? ORDER BY created_at, id LIMIT 1",
          [.integer(appId), .text(customerUserId)]
        ).first?.decode("id", as: String.self)
      else { return nil }
      return try Self.profile(db, appId: appId, id: id)
    }
  }

  public func updateProfile(
    appId: Int64, id: String, at: Date, _ change: (inout ProfileRecord) throws -> Bool
  ) throws -> ProfileRecord? {
    defer { changed(appId: appId, [id]) }
    return try with { db in
      try db.transaction {
        guard var profile = try Self.profile(db, appId: appId, id: id, lock: dialect.lockRow) else { return nil }
        guard try change(&profile) else { return profile }
        profile.version += 1
        profile.updatedAt = at
        try save(db, appId: appId, profile)
        return profile
      }
    }
  }

  func save(_ db: any SQLConnection, appId: Int64, _ profile: ProfileRecord) throws {
    if let announce = dialect.announceProfile { try db.query(announce, [.text("\(appId):\(profile.id)")]) }
    let values = Self.values(profile)
    try db.query(
      """
      UPDATE profiles SET version = ?, customer_user_id = ?, install = ?, custom_attributes = ?,
      applied_sources = ?, updated_at = ?, attribution = ?, purchases = ? WHERE app_id = ? AND id = ?
      """,
      [
        values[1], values[2], values[3], values[4], values[5], values[7], values[8], values[9], .integer(appId),
        .text(profile.id),
      ])
  }

  static func profile(_ db: any SQLConnection, appId: Int64, id: String, lock: String = "") throws
    -> ProfileRecord?
  {
    guard
      let row = try db.query(
        "SELECT \(SQLColumns.profile) FROM profiles WHERE app_id = ? AND id = ?\(lock)",
        [.integer(appId), .text(id)]
      ).first
    else { return nil }
    return try decodeProfile(row)
  }

  /// A profile from a row of `SQLColumns.profile`.
  static func decodeProfile(_ row: SQLRow) throws -> ProfileRecord {
    let decoder = WireCoding.decoder
    var profile = ProfileRecord(
      id: try row.decode("id"), version: try row.decode("version"), customerUserId: try row.decode("customer_user_id"),
      install: try decoder.decode(InstallMeta.self, from: try row.decode("install")),
      customAttributes: try decoder.decode([String: JSONValue].self, from: try row.decode("custom_attributes")),
      appliedSources: try decoder.decode([String].self, from: try row.decode("applied_sources")),
      createdAt: try row.decode("created_at"), updatedAt: try row.decode("updated_at"))
    profile.attribution = try decoder.decode(ProfileAttribution.self, from: try row.decode("attribution"))
    profile.purchases = try decoder.decode(ProfilePurchases.self, from: try row.decode("purchases"))
    return profile
  }

  static func values(_ profile: ProfileRecord) -> [SQLValue] {
    func json<T: Encodable>(_ value: T) -> SQLValue {
      .text(String(decoding: WireCoding.encode(value), as: UTF8.self))
    }
    return [
      .text(profile.id), .integer(profile.version),
      profile.customerUserId.map(SQLValue.text) ?? .null,
      json(profile.install), json(profile.customAttributes), json(profile.appliedSources),
      .real(profile.createdAt.timeIntervalSince1970), .real(profile.updatedAt.timeIntervalSince1970),
      json(profile.attribution), json(profile.purchases),
    ]
  }

  // MARK: Assignments

  public func assignment(_ key: AssignmentKey) throws -> String? {
    guard let cache = profileCache else { return try storedAssignment(key) }
    return try cache.assignment(key) { try storedAssignment(key) }
  }

  private func storedAssignment(_ key: AssignmentKey) throws -> String? {
    try with { db in
      try db.query(
        """
        SELECT variation_id FROM assignments
        WHERE app_id = ? AND profile_id = ? AND placement_id = ? AND audience_id = ?
        """, Self.values(key)
      ).first?.decode("variation_id")
    }
  }

  /// An assignment is a deterministic function of the bucket and the weights, so a commit
  /// lost to a power cut is recomputed identically: it does not wait for the disk, which
  /// is what makes first-time placement resolution fast.
  /// With the profile cache, the write joins the next batch and the request does not wait.
  public func assign(_ key: AssignmentKey, variationId: String, at: Date) throws -> String {
    if let writer = assignmentWriter, let cache = profileCache, !cache.bypass {
      cache.remember(key, variationId, unwritten: true)
      writer.enqueue(PendingAssignment(key: key, variationId: variationId, at: at))
      return variationId
    }
    let kept = try storeAssignment(key, variationId: variationId, at: at)
    profileCache?.remember(key, kept)
    return kept
  }

  /// One transaction for a batch; where another instance stored a different variation
  /// first, that one is remembered (the earliest stored assignment wins everywhere).
  func storeAssignments(_ batch: [PendingAssignment]) throws {
    let kept = try relaxedPool.with { db in
      try db.transaction { () throws -> [(AssignmentKey, String)] in
        if let relax = dialect.relaxTransaction { try db.execute(relax) }
        var differing: [(AssignmentKey, String)] = []
        for item in batch {
          let inserted = try db.query(
            """
            INSERT INTO assignments (app_id, profile_id, placement_id, audience_id, variation_id, assigned_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING variation_id
            """, Self.values(item.key) + [.text(item.variationId), .real(item.at.timeIntervalSince1970)])
          guard inserted.isEmpty else { continue }
          let stored = try db.query(
            """
            SELECT variation_id FROM assignments
            WHERE app_id = ? AND profile_id = ? AND placement_id = ? AND audience_id = ?
            """, Self.values(item.key)
          ).first?.decode("variation_id", as: String.self)
          if let stored, stored != item.variationId { differing.append((item.key, stored)) }
        }
        return differing
      }
    }
    profileCache?.written(batch)
    for (key, variation) in kept { profileCache?.remember(key, variation) }
  }

  private func storeAssignment(_ key: AssignmentKey, variationId: String, at: Date) throws -> String {
    try relaxedPool.with { db in
      try db.transaction {
        if let relax = dialect.relaxTransaction { try db.execute(relax) }
        try db.query(
          """
          INSERT INTO assignments (app_id, profile_id, placement_id, audience_id, variation_id, assigned_at)
          VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
          """, Self.values(key) + [.text(variationId), .real(at.timeIntervalSince1970)])
        return try db.query(
          """
          SELECT variation_id FROM assignments
          WHERE app_id = ? AND profile_id = ? AND placement_id = ? AND audience_id = ?
          """, Self.values(key)
        ).first?.decode("variation_id") ?? variationId
      }
    }
  }

  static func values(_ key: AssignmentKey) -> [SQLValue] {
    [.integer(key.appId), .text(key.profileId), .text(key.placementId), .text(key.audienceId)]
  }

  // MARK: Attribution

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

  public func enqueueAttribution(appId: Int64, profileId: String, token: String, tokenHash: String, at: Date)
    throws -> (AttributionJob, created: Bool)
  {
    defer { changed(appId: appId, [profileId]) }
    return try with { db in
      try db.transaction {
        let now = SQLValue.real(at.timeIntervalSince1970)
        try db.query(
          """
          INSERT INTO attribution_jobs (\(SQLColumns.job), created_at, updated_at)
          VALUES (?, ?, ?, ?, 'pending', 0, 0, ?, NULL, ?, ?) ON CONFLICT DO NOTHING
          """, [.integer(appId), .text(profileId), .text(tokenHash), .text(token), now, now, now])
        let created = db.changes == 1
        let rows = try db.query(
          "SELECT \(SQLColumns.job) FROM attribution_jobs WHERE app_id = ? AND profile_id = ? AND token_hash = ?",
          [.integer(appId), .text(profileId), .text(tokenHash)])
        if created, var profile = try Self.profile(db, appId: appId, id: profileId, lock: dialect.lockRow),
          profile.attribution.status[appleAdsSource] != .applied
        {
          profile.attribution.status[appleAdsSource] = .pending
          try save(db, appId: appId, profile)
        }
        guard let row = rows.first else { throw StoreError.database("the job just recorded is not there") }
        return (try Self.job(row), created)
      }
    }
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
    defer { changed(appId: job.appId, [job.profileId]) }
    return try with { db in
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
      try db.query("SELECT COUNT(*) AS pending FROM attribution_jobs WHERE status = 'pending'").first?.decode("pending")
        ?? 0
    }
  }

  // MARK: Events

  public func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int {
    try with { db in
      try db.transaction {
        var inserted = 0
        for event in events {
          try db.query(
            """
            INSERT INTO events (app_id, event_id, profile_id, placement_id, audience_id,
            variation_id, flow_id, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO NOTHING
            """,
            [
              .integer(appId), event.eventId.map(SQLValue.text) ?? .null, .text(event.profileId),
              .text(event.placementId), .text(event.audienceId), .text(event.variationId),
              .text(event.flowId), .real(event.receivedAt.timeIntervalSince1970),
            ])
          guard db.changes == 1 else { continue }
          inserted += 1
          try Self.rollImpression(db, appId: appId, event)
        }
        return inserted
      }
    }
  }

}

/// Column lists shared by several statements.
enum SQLColumns {
  static let profile =
    "id, version, customer_user_id, install, custom_attributes, applied_sources, created_at, updated_at, attribution, purchases"
  static let job = "app_id, profile_id, token_hash, token, status, attempts, not_found, next_attempt_at, last_error"
}
