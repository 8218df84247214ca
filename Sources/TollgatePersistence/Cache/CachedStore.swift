import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Profiles and assignments kept in memory in front of a database: the three repositories it
/// caches. Reads of a profile's targeting view and of its A/B assignments come from the cache,
/// first-time assignments are written in batches, and a profile the database says changed
/// (`ProfileChangeObservers`, after the commit) is forgotten. On PostgreSQL a listener hears the
/// other instances' changes (announced inside their transactions) and forgets those too; while
/// it is not listening, the cache is bypassed. Every other repository is the database's own.
public final class CachedStore: ProfileRepository, AssignmentRepository, TargetingViewRepository, Sendable {
  let database: any ProfileCacheSource
  /// Profiles kept in memory (its figures go to `/metrics`).
  public let profileCache: ProfileCache
  private var cache: ProfileCache { profileCache }
  private let writer: AssignmentWriter
  private let listener: ProfileChangeListener?

  init(_ database: any ProfileCacheSource, capacity: Int, listenTo conninfo: String?, logger: Logger) {
    self.database = database
    let cache = ProfileCache(capacity: capacity)
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
    // After a commit that changed these profiles this instance forgets them (the other
    // instances heard the announcement made inside the transaction).
    database.profileChanges.observe { appId, ids in
      for id in ids { cache.invalidate(appId: appId, id: id) }
    }
  }

  /// Keeps `capacity` profiles of `database` in memory; on PostgreSQL coherent with the other
  /// instances through `LISTEN/NOTIFY` (on SQLite one process owns the file, so every change
  /// passes through here).
  public convenience init(_ database: any ProfileCacheSource, capacity: Int, logger: Logger = Logger()) {
    self.init(database, capacity: capacity, listenTo: database.announcementConninfo, logger: logger)
  }

  /// First-time A/B assignments waiting for their batch write, written, and dropped.
  public var assignmentWrites: (pending: Int, written: Int, dropped: Int) { writer.figures }

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

  /// The database announces the change, and the cache forgets the profile.
  public func updateProfile(
    appId: Int64, id: String, at: Date, _ change: (inout ProfileRecord) throws -> Bool
  ) throws -> ProfileRecord? {
    try database.updateProfile(appId: appId, id: id, at: at, change)
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

  // MARK: The rest of the profile and assignment repositories, from the database

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
}
