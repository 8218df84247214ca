import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// A profile with its stored assignments, as the cache reads it in bulk.
typealias CachedProfile = (appId: Int64, profile: ProfileRecord, assignments: [ProfileCache.Slot: String])

/// What the profile cache needs from the database beyond the repositories: a profile read
/// with all its assignments, pages of them for warming, and batched assignment writes.
protocol ProfileCacheSource: Store {
  /// The profile and every stored assignment of it.
  func profileWithAssignments(appId: Int64, id: String) throws -> (ProfileRecord, [ProfileCache.Slot: String])?

  /// Up to `limit` profiles after `after` in (app, id) order, with their assignments.
  func profilePage(after: (appId: Int64, id: String), limit: Int) throws -> [CachedProfile]

  /// Stores a batch of first-time assignments in one transaction; returns the slots where
  /// another instance had stored a different variation first (that one wins).
  func storeAssignments(_ batch: [PendingAssignment]) throws -> [(AssignmentKey, String)]
}

/// A store with profiles and assignments kept in memory: reads of a profile and of its A/B
/// assignments come from the cache, first-time assignments are written in batches, and every
/// write that changes a profile forgets it once committed. On PostgreSQL a listener hears the
/// other instances' changes (announced inside their transactions) and forgets those too; while
/// it is not listening, the cache is bypassed. Everything else goes straight to `database`.
public final class CachedStore: Store, TargetingViewRepository {
  let database: any ProfileCacheSource
  /// Profiles kept in memory.
  public let profileCache: ProfileCache?
  private let cache: ProfileCache
  private let writer: AssignmentWriter
  private let listener: ProfileChangeListener?

  init(_ database: any ProfileCacheSource, capacity: Int, listenTo conninfo: String?, logger: Logger) {
    self.database = database
    let cache = ProfileCache(capacity: capacity)
    self.cache = cache
    profileCache = cache
    listener = conninfo.map { ProfileChangeListener(conninfo: $0, cache: cache) }
    writer = AssignmentWriter(failed: { error in
      logger.warn("assignments not stored yet (retrying): \(error)")
    })
    writer.attach { batch in
      let kept = try database.storeAssignments(batch)
      cache.written(batch)
      for (key, variation) in kept { cache.remember(key, variation) }
    }
  }

  /// Keeps `capacity` profiles of a SQLite store in memory (one process owns the file, so
  /// every change passes through here).
  public convenience init(_ database: SQLiteStore, capacity: Int, logger: Logger = Logger()) {
    self.init(database, capacity: capacity, listenTo: nil, logger: logger)
  }

  /// Keeps `capacity` profiles of a PostgreSQL store in memory, coherent with the other
  /// instances through `LISTEN/NOTIFY`.
  public convenience init(_ database: PostgresStore, capacity: Int, logger: Logger = Logger()) {
    self.init(database, capacity: capacity, listenTo: database.conninfo, logger: logger)
  }

  public var assignmentWrites: (pending: Int, written: Int, dropped: Int)? { writer.figures }

  /// Reads profiles into the cache (with their assignments, packed for their app's `schema`)
  /// in key order, a page at a time, until it is full or every profile is in; returns how
  /// many were read. Run at start so the first requests after a restart find their profiles
  /// in memory. Waits (up to 5 s) for the change listener first: until it listens, nothing
  /// read could be kept.
  @discardableResult
  package func warmProfileCache(pageSize: Int = 2_000, schema: (Int64) -> TargetingSchema?) throws -> Int {
    for _ in 0..<100 where listener?.listening == false { Thread.sleep(forTimeInterval: 0.05) }
    var after: (appId: Int64, id: String) = (Int64.min, "")
    var read = 0
    while true {
      let mark = cache.mark()
      let page = try database.profilePage(after: after, limit: pageSize)
      guard let last = page.last else { return read }
      read += page.count
      after = (last.appId, last.profile.id)
      guard cache.fill(page, since: mark, schema: schema) else { return read }
    }
  }

  public func close() {
    listener?.stop()
    writer.close()
    database.close()
  }

  /// After a commit that changed these profiles: this instance forgets them (others heard
  /// the announcement made inside the transaction).
  private func changed(appId: Int64, _ ids: [String]) {
    for id in ids { cache.invalidate(appId: appId, id: id) }
  }

  // MARK: Profiles and assignments, through the cache

  /// The full record comes from the database: only routes that return it read it.
  public func profile(appId: Int64, id: String) throws -> ProfileRecord? {
    try database.profile(appId: appId, id: id)
  }

  /// Read with all its assignments on a miss, so resolving its placements needs no further read.
  package func targetingView(appId: Int64, id: String, schema: TargetingSchema) throws -> TargetingView? {
    try cache.view(appId: appId, id: id, schema: schema) {
      try database.profileWithAssignments(appId: appId, id: id)
    }
  }

  public func updateProfile(
    appId: Int64, id: String, at: Date, _ change: (inout ProfileRecord) throws -> Bool
  ) throws -> ProfileRecord? {
    defer { changed(appId: appId, [id]) }
    return try database.updateProfile(appId: appId, id: id, at: at, change)
  }

  public func assignment(_ key: AssignmentKey) throws -> String? {
    try cache.assignment(key) { try database.assignment(key) }
  }

  /// The write joins the next batch and the request does not wait — unless the cache is
  /// bypassed (nothing could remember it meanwhile).
  public func assign(_ key: AssignmentKey, variationId: String, at: Date) throws -> String {
    guard !cache.bypass else {
      let kept = try database.assign(key, variationId: variationId, at: at)
      cache.remember(key, kept)
      return kept
    }
    cache.remember(key, variationId, unwritten: true)
    writer.enqueue(PendingAssignment(key: key, variationId: variationId, at: at))
    return variationId
  }

  public func recordAppStoreFacts(
    appId: Int64, _ facts: AppStoreFacts, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome {
    let outcome = try database.recordAppStoreFacts(appId: appId, facts, at: at, derive: derive)
    changed(appId: appId, outcome.changed.map(\.id))
    return outcome
  }

  public func rederivePurchases(
    appId: Int64, profileId: String, at: Date, webhooks: [WebhookConfig], derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> ProfileRecord? {
    defer { changed(appId: appId, [profileId]) }
    return try database.rederivePurchases(
      appId: appId, profileId: profileId, at: at, webhooks: webhooks, derive: derive)
  }

  public func enqueueAttributions(_ tokens: [QueuedToken]) throws -> [(AttributionJob, created: Bool)] {
    defer {
      for (appId, group) in Dictionary(grouping: tokens, by: \.appId) { changed(appId: appId, group.map(\.profileId)) }
    }
    return try database.enqueueAttributions(tokens)
  }

  public func finishAttribution(
    _ job: AttributionJob, _ outcome: AttributionOutcome, at: Date, webhooks: [WebhookConfig]
  ) throws -> ProfileRecord? {
    defer { changed(appId: job.appId, [job.profileId]) }
    return try database.finishAttribution(job, outcome, at: at, webhooks: webhooks)
  }

  // MARK: Everything else, straight to the database

  public func insertProfile(appId: Int64, _ profile: ProfileRecord) throws -> (ProfileRecord, created: Bool) {
    try database.insertProfile(appId: appId, profile)
  }
  public func importProfiles(appId: Int64, _ profiles: [ProfileRecord]) throws -> Int {
    try database.importProfiles(appId: appId, profiles)
  }
  public func profile(appId: Int64, customerUserId: String) throws -> ProfileRecord? {
    try database.profile(appId: appId, customerUserId: customerUserId)
  }
  public func profileIds(appId: Int64, customerUserId: String, limit: Int) throws -> [String] {
    try database.profileIds(appId: appId, customerUserId: customerUserId, limit: limit)
  }
  public func assignments(appId: Int64, profileId: String) throws -> [AssignmentRow] {
    try database.assignments(appId: appId, profileId: profileId)
  }
  public func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction] {
    try database.transactions(appId: appId, profileId: profileId)
  }

  public func createApp(name: String) throws -> AppRecord { try database.createApp(name: name) }
  public func app(named name: String) throws -> AppRecord? { try database.app(named: name) }
  public func app(id: Int64) throws -> AppRecord? { try database.app(id: id) }
  public func revisions() throws -> [Int64: Int64] { try database.revisions() }
  public func addKey(appId: Int64, kind: KeyKind, hash: String, at: Date, label: String?) throws {
    try database.addKey(appId: appId, kind: kind, hash: hash, at: at, label: label)
  }
  public func key(hash: String) throws -> KeyRecord? { try database.key(hash: hash) }
  public func keys(appId: Int64) throws -> [KeyRecord] { try database.keys(appId: appId) }
  public func revokeKey(appId: Int64, id: String, at: Date) throws -> KeyRecord? {
    try database.revokeKey(appId: appId, id: id, at: at)
  }
  public func touchKey(hash: String, at: Date) throws { try database.touchKey(hash: hash, at: at) }
  public func audit(appId: Int64, _ entry: AuditRecord) throws { try database.audit(appId: appId, entry) }
  public func auditLog(appId: Int64, before: Int64?, limit: Int) throws -> [AuditRecord] {
    try database.auditLog(appId: appId, before: before, limit: limit)
  }

  public func configHistory(appId: Int64, limit: Int) throws -> [ConfigRevisionRecord] {
    try database.configHistory(appId: appId, limit: limit)
  }
  public func config(appId: Int64, revision: Int64) throws -> ConfigRecord? {
    try database.config(appId: appId, revision: revision)
  }
  public func applyConfig(appId: Int64, document: Data, at: Date, by: String?, summary: String?) throws -> Int64 {
    try database.applyConfig(appId: appId, document: document, at: at, by: by, summary: summary)
  }
  public func currentConfig(appId: Int64) throws -> ConfigRecord? { try database.currentConfig(appId: appId) }

  public func claimAttributionJobs(now: Date, lease: TimeInterval, limit: Int) throws -> [AttributionJob] {
    try database.claimAttributionJobs(now: now, lease: lease, limit: limit)
  }
  public func attributionQueueDepth() throws -> Int { try database.attributionQueueDepth() }
  public func attributionFunnel(appId: Int64) throws -> AttributionFunnel {
    try database.attributionFunnel(appId: appId)
  }

  public func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int {
    try database.recordEvents(appId: appId, events)
  }
  public func recordFirstLaunch(appId: Int64, profileId: String, aaFlowInTime: Bool, at: Date) throws {
    try database.recordFirstLaunch(appId: appId, profileId: profileId, aaFlowInTime: aaFlowInTime, at: at)
  }
  public func recentEvents(appId: Int64, profileId: String, limit: Int) throws -> [EventRow] {
    try database.recentEvents(appId: appId, profileId: profileId, limit: limit)
  }

  public func placementStats(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws
    -> [VariationCounts]
  {
    try database.placementStats(appId: appId, placementId: placementId, days: days)
  }
  public func revenueTotals(appId: Int64, days: ClosedRange<Int64>) throws -> [String: MoneyFigures] {
    try database.revenueTotals(appId: appId, days: days)
  }
  public func placementDays(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationDay] {
    try database.placementDays(appId: appId, placementId: placementId, days: days)
  }
  public func appleAdsStats(appId: Int64, days: ClosedRange<Int64>, by grouping: AppleAdsGrouping) throws
    -> [AppleAdsCounts]
  {
    try database.appleAdsStats(appId: appId, days: days, by: grouping)
  }
  public func cohortRows(
    appId: Int64, installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping,
    segment: CohortReport.Segment, environment: String
  ) throws -> [CohortTotals] {
    try database.cohortRows(
      appId: appId, installDays: installDays, by: grouping, segment: segment, environment: environment)
  }
  public func subscriptionDays(appId: Int64, days: ClosedRange<Int64>, filters: SubscriptionFilters) throws
    -> [SubscriptionDayTotals]
  {
    try database.subscriptionDays(appId: appId, days: days, filters: filters)
  }
  public func rollupSnapshot(appId: Int64) throws -> [String] { try database.rollupSnapshot(appId: appId) }
  public func rebuildRollups(appId: Int64) throws { try database.rebuildRollups(appId: appId) }

  public func ensureWebhookSecrets(appId: Int64, ids: [String], box: SecretBox, at: Date) throws -> [String: String] {
    try database.ensureWebhookSecrets(appId: appId, ids: ids, box: box, at: at)
  }
  public func rotateWebhookSecret(appId: Int64, id: String, box: SecretBox, at: Date) throws -> String {
    try database.rotateWebhookSecret(appId: appId, id: id, box: box, at: at)
  }
  public func webhookSecret(appId: Int64, id: String, box: SecretBox) throws -> String? {
    try database.webhookSecret(appId: appId, id: id, box: box)
  }
  public func claimWebhookDeliveries(now: Date, lease: TimeInterval, limit: Int) throws -> [WebhookDelivery] {
    try database.claimWebhookDeliveries(now: now, lease: lease, limit: limit)
  }
  public func finishWebhookDelivery(id: Int64, _ outcome: WebhookAttemptOutcome, at: Date) throws {
    try database.finishWebhookDelivery(id: id, outcome, at: at)
  }
  public func webhookDeliveries(appId: Int64, status: String?, limit: Int) throws -> [WebhookDelivery] {
    try database.webhookDeliveries(appId: appId, status: status, limit: limit)
  }
  public func redeliverWebhook(appId: Int64, id: Int64, at: Date) throws -> Bool {
    try database.redeliverWebhook(appId: appId, id: id, at: at)
  }
}
