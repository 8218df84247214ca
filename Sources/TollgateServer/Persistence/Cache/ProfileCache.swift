import Foundation
import Synchronization

/// Profiles kept in memory, at most `capacity`, evicted by the CLOCK algorithm (an
/// approximation of least-recently-used at O(1)). Read-through: a miss reads the database
/// and fills the entry — unless the profile was invalidated while that read was running
/// (a per-key generation says so), so a write never loses to a slower read.
public final class ProfileCache: Sendable {
  struct Key: Hashable {
    let appId: Int64
    let id: String
  }

  /// One experiment slot of a profile.
  struct Slot: Hashable {
    let placementId: String
    let audienceId: String
  }

  private struct Entry {
    var profile: ProfileRecord
    /// Every stored assignment of the profile when it was read (nil: not read with it).
    var assignments: [Slot: String]?
    var referenced: Bool
    var slot: Int
  }

  private struct State {
    var entries: [Key: Entry] = [:]
    var ring: [Key?]
    var hand = 0
    /// Bumped on every invalidation; a read that started at another generation does not fill.
    var generations: [Key: UInt64] = [:]
    var clock: UInt64 = 0
    /// Bumped when the generation table is dropped: no read running then may fill.
    var epoch: UInt64 = 0
    /// Assignments queued for the batch writer, added to profiles read meanwhile.
    var unwritten: [Key: [Slot: String]] = [:]
  }

  /// How many profiles it keeps at most; 0 turns caching off.
  public let capacity: Int
  private let state: Mutex<State>
  private let hitCount = Atomic<Int>(0)
  private let missCount = Atomic<Int>(0)
  private let evictionCount = Atomic<Int>(0)
  private let bypassing = Atomic<Bool>(false)
  private let outageCount = Atomic<Int>(0)

  public init(capacity: Int) {
    self.capacity = max(0, capacity)
    state = Mutex(State(ring: Array(repeating: nil, count: max(0, capacity))))
  }

  /// The profile, from memory or through `load` (and then kept).
  func profile(appId: Int64, id: String, load: () throws -> ProfileRecord?) throws -> ProfileRecord? {
    try profile(appId: appId, id: id, loadWithAssignments: { try load().map { ($0, nil) } })
  }

  /// The profile, from memory or through `load`, which may also return all the profile's
  /// stored assignments (then `assignment` needs no database read for it).
  func profile(
    appId: Int64, id: String, loadWithAssignments load: () throws -> (ProfileRecord, [Slot: String]?)?
  ) throws -> ProfileRecord? {
    guard capacity > 0, !bypassing.load(ordering: .relaxed) else { return try load()?.0 }
    let key = Key(appId: appId, id: id)
    let (cached, generation, epoch) = state.withLock { state -> (ProfileRecord?, UInt64, UInt64) in
      if var entry = state.entries[key] {
        entry.referenced = true
        state.entries[key] = entry
        return (entry.profile, 0, 0)
      }
      return (nil, state.generations[key] ?? 0, state.epoch)
    }
    if let cached {
      hitCount.wrappingAdd(1, ordering: .relaxed)
      return cached
    }
    missCount.wrappingAdd(1, ordering: .relaxed)
    guard let (profile, stored) = try load() else { return nil }
    state.withLock { state in
      guard state.epoch == epoch, (state.generations[key] ?? 0) == generation, state.entries[key] == nil else {
        return
      }
      // Assignments made here since are still on their way to the database.
      var assignments = stored
      if assignments != nil {
        for (slot, variation) in state.unwritten[key] ?? [:] { assignments?[slot] = variation }
      }
      insert(&state, key, profile, assignments: assignments)
    }
    return profile
  }

  /// Stored A/B assignments never change (the first stored variation wins), so they stay
  /// true in every instance; kept up to `capacity`, then started afresh.
  private let assignments = Mutex<[AssignmentKey: String]>([:])

  func assignment(_ key: AssignmentKey, load: () throws -> String?) throws -> String? {
    guard capacity > 0 else { return try load() }
    let profileKey = Key(appId: key.appId, id: key.profileId)
    let slot = Slot(placementId: key.placementId, audienceId: key.audienceId)
    // A cached profile read with its assignments knows them all: absent means none.
    let fromEntry = state.withLock { state -> String?? in
      guard let assignments = state.entries[profileKey]?.assignments else { return .none }
      return .some(assignments[slot])
    }
    if case .some(let known) = fromEntry { return known }
    if let known = assignments.withLock({ $0[key] }) { return known }
    guard let stored = try load() else { return nil }
    remember(key, stored)
    return stored
  }

  /// Notes an assignment; `unwritten` while it waits for its batch write.
  func remember(_ key: AssignmentKey, _ variationId: String, unwritten: Bool = false) {
    guard capacity > 0 else { return }
    let profileKey = Key(appId: key.appId, id: key.profileId)
    let slot = Slot(placementId: key.placementId, audienceId: key.audienceId)
    let held = state.withLock { state -> Bool in
      if unwritten { state.unwritten[profileKey, default: [:]][slot] = variationId }
      guard state.entries[profileKey]?.assignments != nil else { return false }
      state.entries[profileKey]?.assignments?[slot] = variationId
      return true
    }
    // Profiles not in memory keep their assignments here (bounded: started afresh when full).
    guard !held else { return }
    assignments.withLock { cache in
      if cache.count >= capacity { cache = [:] }
      cache[key] = variationId
    }
  }

  /// Where a bulk read starts: entries invalidated after it are not filled from that read.
  struct Mark {
    fileprivate let clock: UInt64
    fileprivate let epoch: UInt64
  }

  /// Taken before a bulk read (warming).
  func mark() -> Mark { state.withLock { Mark(clock: $0.clock, epoch: $0.epoch) } }

  /// Fills free room with profiles read in bulk after `mark` (their stored assignments
  /// included); returns false once the cache is full.
  @discardableResult
  func fill(_ profiles: [(appId: Int64, profile: ProfileRecord, assignments: [Slot: String])], since mark: Mark) -> Bool
  {
    guard capacity > 0, !bypassing.load(ordering: .relaxed) else { return false }
    return state.withLock { state in
      // Everything was dropped since the read (the listener reconnected): skip this page.
      guard state.epoch == mark.epoch else { return state.entries.count < capacity }
      for (appId, profile, stored) in profiles {
        guard state.entries.count < capacity else { return false }
        let key = Key(appId: appId, id: profile.id)
        guard state.entries[key] == nil, (state.generations[key] ?? 0) <= mark.clock else { continue }
        var assignments = stored
        for (slot, variation) in state.unwritten[key] ?? [:] { assignments[slot] = variation }
        insert(&state, key, profile, assignments: assignments)
      }
      return state.entries.count < capacity
    }
  }

  /// Assignments the batch writer stored: no longer pending.
  func written(_ batch: [PendingAssignment]) {
    state.withLock { state in
      for item in batch {
        let key = Key(appId: item.key.appId, id: item.key.profileId)
        let slot = Slot(placementId: item.key.placementId, audienceId: item.key.audienceId)
        guard state.unwritten[key]?[slot] == item.variationId else { continue }
        state.unwritten[key]?[slot] = nil
        if state.unwritten[key]?.isEmpty == true { state.unwritten[key] = nil }
      }
    }
  }

  /// Forgets a profile (it changed, here or in another instance).
  public func invalidate(appId: Int64, id: String) {
    guard capacity > 0 else { return }
    let key = Key(appId: appId, id: id)
    state.withLock { state in
      state.clock &+= 1
      state.generations[key] = state.clock
      if let entry = state.entries.removeValue(forKey: key) { state.ring[entry.slot] = nil }
      // Generations only matter while a read may be running; keep the table small.
      if state.generations.count > 4 * capacity + 1024 {
        state.generations = [:]
        state.epoch &+= 1
      }
    }
  }

  /// Forgets everything (the change notifications were interrupted).
  public func clear() {
    state.withLock { state in
      state.clock &+= 1
      state.entries = [:]
      state.ring = Array(repeating: nil, count: capacity)
      state.generations = [:]
      state.epoch &+= 1
    }
  }

  private let warmingFlag = Atomic<Bool>(false)

  /// True while the server reads profiles into the cache at start.
  public var warming: Bool {
    get { warmingFlag.load(ordering: .relaxed) }
    set { warmingFlag.store(newValue, ordering: .relaxed) }
  }

  private let configAnnouncements = Atomic<Int>(0)

  private let configHandlers = Mutex<[@Sendable () -> Void]>([])

  /// Another instance applied a configuration (or announcements were interrupted): tell the
  /// handlers at once.
  func configAnnounced() {
    configAnnouncements.wrappingAdd(1, ordering: .relaxed)
    for handler in configHandlers.withLock({ $0 }) { handler() }
  }

  /// Runs `handler` whenever a configuration change is announced (on the listener's thread:
  /// keep it short or hand the work on).
  public func onConfigAnnounced(_ handler: @escaping @Sendable () -> Void) {
    configHandlers.withLock { $0.append(handler) }
  }

  /// Grows whenever a configuration change was announced: the server refreshes its configs
  /// when it moves, instead of waiting for its once-a-second check.
  public var configChanges: Int { configAnnouncements.load(ordering: .relaxed) }

  /// While true, every read goes to the database: nothing says what other instances changed.
  public var bypass: Bool {
    get { bypassing.load(ordering: .relaxed) }
    set {
      if newValue { clear() }
      let was = bypassing.exchange(newValue, ordering: .relaxed)
      if newValue && !was { outageCount.wrappingAdd(1, ordering: .relaxed) }
    }
  }

  private func insert(_ state: inout State, _ key: Key, _ profile: ProfileRecord, assignments: [Slot: String]?) {
    while let occupant = state.ring[state.hand] {
      if state.entries[occupant]?.referenced == true {
        state.entries[occupant]?.referenced = false
        state.hand = (state.hand + 1) % capacity
      } else {
        state.entries.removeValue(forKey: occupant)
        state.ring[state.hand] = nil
        evictionCount.wrappingAdd(1, ordering: .relaxed)
      }
    }
    state.ring[state.hand] = key
    state.entries[key] = Entry(profile: profile, assignments: assignments, referenced: false, slot: state.hand)
    state.hand = (state.hand + 1) % capacity
  }

  /// Figures for `/metrics`; `outages` counts the times the cache started bypassing.
  public var figures: (entries: Int, hits: Int, misses: Int, evictions: Int, bypass: Bool, outages: Int) {
    (
      state.withLock { $0.entries.count }, hitCount.load(ordering: .relaxed), missCount.load(ordering: .relaxed),
      evictionCount.load(ordering: .relaxed), bypassing.load(ordering: .relaxed), outageCount.load(ordering: .relaxed)
    )
  }
}
