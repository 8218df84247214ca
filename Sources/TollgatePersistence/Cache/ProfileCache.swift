import Foundation
import Synchronization
import TollgateDomain
import TollgateSupport

/// What placements need of profiles, kept in memory: per profile, its targeting view (the
/// values its app's rules read, packed) and its stored A/B assignments — a few dozen bytes,
/// so every profile of a large app fits (see `PackedProfiles`). At most `capacity` profiles,
/// evicted by CLOCK. Read-through: a miss reads the database and fills the entry — unless the
/// profile was invalidated while that read was running (a per-key generation says so), so a
/// write never loses to a slower read. Full records are never kept: routes that return one
/// read it from the database.
public final class ProfileCache: Sendable {
  /// One experiment slot of a profile.
  typealias Slot = AssignmentSlot

  private struct State {
    var profiles: PackedProfiles
    /// Bumped on every invalidation; a read that started at another generation does not fill.
    var generations: [PackedKey: UInt64] = [:]
    var clock: UInt64 = 0
    /// Bumped when the generation table is dropped: no read running then may fill.
    var epoch: UInt64 = 0
    /// Assignments queued for the batch writer, added to profiles read meanwhile.
    var unwritten: [PackedKey: [Slot: String]] = [:]
    /// How many values each schema packs (where a record's assignments start).
    var schemaSizes: [UInt32: Int] = [:]
  }

  /// One lock's share of the profiles (picked by key hash), so request threads rarely wait
  /// for each other.
  private final class Shard: Sendable {
    let state: Mutex<State>
    init(capacity: Int) { state = Mutex(State(profiles: PackedProfiles(capacity: capacity))) }
  }

  /// How many profiles it keeps at most; 0 turns caching off.
  public let capacity: Int
  private let shards: [Shard]
  /// Strings shared by many profiles; the first half of the table is open to attribute
  /// values, the whole of it to placement, audience and variation ids.
  let strings = StringTable()
  private let hitCount = Atomic<Int>(0)
  private let missCount = Atomic<Int>(0)
  private let bypassing = Atomic<Bool>(false)
  private let outageCount = Atomic<Int>(0)
  /// Profiles held in all shards.
  private let heldCount = Atomic<Int>(0)
  /// Generations kept at most before the table is dropped (an epoch bump).
  private let generationLimit: Int

  public init(capacity: Int) {
    self.capacity = max(0, capacity)
    // Small caches keep one shard. Keys do not spread evenly, so a shard may hold a quarter more
    // than its share while the cache as a whole holds fewer than `capacity`.
    let count = capacity >= 16_384 ? 16 : 1
    let share = (max(0, capacity) + count - 1) / count
    generationLimit = min(4 * max(0, capacity) + 1_024, 65_536) / count
    shards = (0..<count).map { _ in Shard(capacity: count == 1 ? share : share + share / 4) }
  }

  private func shardIndex(_ key: PackedKey) -> Int {
    shards.count == 1 ? 0 : Int(truncatingIfNeeded: key.mixed >> 60) % shards.count
  }

  private func shard(_ key: PackedKey) -> Shard { shards[shardIndex(key)] }

  /// The targeting view of a profile for `schema`, from memory or through `load` (the full
  /// record and all its stored assignments, then packed and kept). Nil: no such profile.
  func view(
    appId: Int64, id: String, schema: TargetingSchema, load: () throws -> (ProfileRecord, [Slot: String])?
  ) throws -> TargetingView? {
    guard capacity > 0, !bypassing.load(ordering: .relaxed), let key = PackedKey(appId: appId, id: id) else {
      return try load().map { TargetingView(profile: $0.0, schema: schema) }
    }
    let shard = shard(key)
    let (cached, generation, epoch) = shard.state.withLock { state -> (PackedBytes?, UInt64, UInt64) in
      if let index = state.profiles.find(key) {
        let (packedFor, bytes) = state.profiles.read(index)
        if packedFor == schema.id {
          state.profiles.touch(index)
          return (bytes, 0, 0)
        }
      }
      return (nil, state.generations[key] ?? 0, state.epoch)
    }
    if let cached {
      hitCount.wrappingAdd(1, ordering: .relaxed)
      return TargetingView(profileId: id, schemaId: schema.id, bytes: cached, strings: strings)
    }
    missCount.wrappingAdd(1, ordering: .relaxed)
    guard let (profile, stored) = try load() else { return nil }
    let values = TargetingView.pack(profile, schema: schema, strings: strings)
    shard.state.withLock { state in
      guard state.epoch == epoch, (state.generations[key] ?? 0) == generation else { return }
      // Assignments made here since are still on their way to the database.
      var assignments = stored
      for (slot, variation) in state.unwritten[key] ?? [:] { assignments[slot] = variation }
      store(&state, key, values: values, schema: schema, assignments: assignments)
    }
    return TargetingView(profileId: id, schemaId: schema.id, bytes: PackedBytes(values), strings: strings)
  }

  /// Stored A/B assignments never change (the first stored variation wins), so they stay
  /// true in every instance. Profiles not in memory keep theirs here, up to a bound, then
  /// started afresh.
  private let assignments = Mutex<[AssignmentKey: String]>([:])

  func assignment(_ key: AssignmentKey, load: () throws -> String?) throws -> String? {
    guard capacity > 0 else { return try load() }
    let slot = Slot(placementId: key.placementId, audienceId: key.audienceId)
    // A cached profile knows all its assignments: absent means none.
    if let profileKey = PackedKey(appId: key.appId, id: key.profileId) {
      let fromEntry = shard(profileKey).state.withLock { state -> String?? in
        guard let index = state.profiles.find(profileKey) else { return .none }
        return assignment(&state, index, slot)
      }
      if case .some(let known) = fromEntry { return known }
    }
    if let known = assignments.withLock({ $0[key] }) { return known }
    guard let stored = try load() else { return nil }
    remember(key, stored)
    return stored
  }

  /// Notes an assignment; `unwritten` while it waits for its batch write.
  func remember(_ key: AssignmentKey, _ variationId: String, unwritten: Bool = false) {
    guard capacity > 0 else { return }
    let slot = Slot(placementId: key.placementId, audienceId: key.audienceId)
    let profileKey = PackedKey(appId: key.appId, id: key.profileId)
    guard let profileKey else { return keepAside(key, variationId) }
    let held = shard(profileKey).state.withLock { state -> Bool in
      if unwritten { state.unwritten[profileKey, default: [:]][slot] = variationId }
      guard let index = state.profiles.find(profileKey), var known = assignments(&state, index) else { return false }
      known[slot] = variationId
      let (schema, bytes) = state.profiles.read(index)
      let values = bytes.withUnsafeBytes { raw in
        Array(raw.prefix(TargetingView.valuesEnd(raw, schema: state.schemaSizes[schema] ?? 0)))
      }
      guard let packed = pack(values, known) else {
        state.profiles.remove(index)
        heldCount.wrappingSubtract(1, ordering: .relaxed)
        return false
      }
      state.profiles.write(index, schema: schema, bytes: packed)
      return true
    }
    if !held { keepAside(key, variationId) }
  }

  private func keepAside(_ key: AssignmentKey, _ variationId: String) {
    assignments.withLock { cache in
      if cache.count >= min(capacity, 65_536) { cache = [:] }
      cache[key] = variationId
    }
  }

  /// Where a bulk read starts: entries invalidated after it are not filled from that read.
  struct Mark {
    fileprivate let clocks: [UInt64]
    fileprivate let epochs: [UInt64]
  }

  /// Taken before a bulk read (warming).
  func mark() -> Mark {
    let marks = shards.map { shard in shard.state.withLock { ($0.clock, $0.epoch) } }
    return Mark(clocks: marks.map(\.0), epochs: marks.map(\.1))
  }

  /// Fills free room with profiles read in bulk after `mark` (their stored assignments
  /// included), packed for their app's schema (apps without one are skipped); returns false
  /// once the cache is full.
  @discardableResult
  func fill(
    _ profiles: [(appId: Int64, profile: ProfileRecord, assignments: [Slot: String])], since mark: Mark,
    schema: (Int64) -> TargetingSchema?
  ) -> Bool {
    guard capacity > 0, !bypassing.load(ordering: .relaxed) else { return false }
    // Packed outside the locks, grouped by the shard that keeps each.
    var groups = Array(repeating: [(PackedKey, TargetingSchema, [UInt8], [Slot: String])](), count: shards.count)
    for (appId, profile, assignments) in profiles {
      guard let schema = schema(appId), let key = PackedKey(appId: appId, id: profile.id) else { continue }
      groups[shardIndex(key)].append(
        (key, schema, TargetingView.pack(profile, schema: schema, strings: strings), assignments))
    }
    for (number, shard) in shards.enumerated() {
      shard.state.withLock { state in
        // Everything was dropped since the read (the listener reconnected): skip this page.
        guard state.epoch == mark.epochs[number] else { return }
        for (key, schema, values, stored) in groups[number] {
          guard heldCount.load(ordering: .relaxed) < capacity, state.profiles.count < state.profiles.capacity else {
            return
          }
          guard state.profiles.find(key) == nil, (state.generations[key] ?? 0) <= mark.clocks[number] else { continue }
          var assignments = stored
          for (slot, variation) in state.unwritten[key] ?? [:] { assignments[slot] = variation }
          store(&state, key, values: values, schema: schema, assignments: assignments)
        }
      }
    }
    return heldCount.load(ordering: .relaxed) < capacity
  }

  /// Assignments the batch writer stored: no longer pending.
  func written(_ batch: [PendingAssignment]) {
    for item in batch {
      guard let key = PackedKey(appId: item.key.appId, id: item.key.profileId) else { continue }
      let slot = Slot(placementId: item.key.placementId, audienceId: item.key.audienceId)
      shard(key).state.withLock { state in
        guard state.unwritten[key]?[slot] == item.variationId else { return }
        state.unwritten[key]?[slot] = nil
        if state.unwritten[key]?.isEmpty == true { state.unwritten[key] = nil }
      }
    }
  }

  /// Forgets a profile (it changed, here or in another instance).
  public func invalidate(appId: Int64, id: String) {
    guard capacity > 0, let key = PackedKey(appId: appId, id: id) else { return }
    shard(key).state.withLock { state in
      state.clock &+= 1
      state.generations[key] = state.clock
      if let index = state.profiles.find(key) {
        state.profiles.remove(index)
        heldCount.wrappingSubtract(1, ordering: .relaxed)
      }
      // Generations only matter while a read may be running; keep the table small.
      if state.generations.count > generationLimit {
        state.generations = [:]
        state.epoch &+= 1
      }
    }
  }

  /// Forgets everything (the change notifications were interrupted).
  public func clear() {
    for shard in shards {
      shard.state.withLock { state in
        state.clock &+= 1
        heldCount.wrappingSubtract(state.profiles.count, ordering: .relaxed)
        state.profiles.removeAll()
        state.generations = [:]
        state.epoch &+= 1
      }
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

  // MARK: Packing

  /// Keeps a profile's values and assignments; false when an id could not be interned (the
  /// table is full), and then it is not kept.
  @discardableResult
  private func store(
    _ state: inout State, _ key: PackedKey, values: [UInt8], schema: TargetingSchema, assignments: [Slot: String]
  ) -> Bool {
    guard let packed = pack(values, assignments) else { return false }
    state.schemaSizes[schema.id] = schema.names.count
    if let index = state.profiles.find(key) {
      state.profiles.write(index, schema: schema.id, bytes: packed)
    } else {
      let before = state.profiles.count
      // The cache as a whole is full: make room in this shard.
      if heldCount.load(ordering: .relaxed) >= capacity { state.profiles.evictOne() }
      state.profiles.insert(key, schema: schema.id, bytes: packed)
      heldCount.wrappingAdd(state.profiles.count - before, ordering: .relaxed)
    }
    return true
  }

  /// Values, then the assignment count and each assignment as one interned id of its
  /// placement, audience and variation together (few distinct ones: one or two bytes each).
  private func pack(_ values: [UInt8], _ assignments: [Slot: String]) -> [UInt8]? {
    var bytes = values
    PackedValue.appendVarint(UInt64(assignments.count), to: &bytes)
    for (slot, variation) in assignments {
      guard let id = strings.id(for: slot.placementId + "\u{0}" + slot.audienceId + "\u{0}" + variation) else {
        return nil
      }
      PackedValue.appendVarint(UInt64(id), to: &bytes)
    }
    return bytes
  }

  /// One stored assignment of a held profile, found without decoding the others: `.some(nil)`
  /// when it has none there, `.none` when its bytes cannot be read.
  private func assignment(_ state: inout State, _ index: Int, _ slot: Slot) -> String?? {
    let prefix = slot.placementId + "\u{0}" + slot.audienceId + "\u{0}"
    var found: String?
    let read = eachAssignment(&state, index) { joined in
      guard joined.utf8.starts(with: prefix.utf8) else { return false }
      found = String(joined.utf8.dropFirst(prefix.utf8.count))
      return true
    }
    return read ? .some(found) : .none
  }

  /// The stored assignments of a held profile (nil when its bytes cannot be read).
  private func assignments(_ state: inout State, _ index: Int) -> [Slot: String]? {
    var result: [Slot: String] = [:]
    var whole = true
    let read = eachAssignment(&state, index) { joined in
      let parts = joined.split(separator: "\u{0}", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3 else {
        whole = false
        return true
      }
      result[Slot(placementId: String(parts[0]), audienceId: String(parts[1]))] = String(parts[2])
      return false
    }
    return read && whole ? result : nil
  }

  /// Visits a held profile's assignments as `placement NUL audience NUL variation` until
  /// `visit` says stop; false when its bytes cannot be read.
  private func eachAssignment(_ state: inout State, _ index: Int, _ visit: (String) -> Bool) -> Bool {
    let (schema, bytes) = state.profiles.read(index)
    guard let size = state.schemaSizes[schema] else { return false }
    let strings = self.strings
    return bytes.withUnsafeBytes { raw -> Bool in
      var reader = PackedValue.Reader(bytes: raw, strings: strings)
      reader.offset = TargetingView.valuesEnd(raw, schema: size)
      guard let count = reader.varint() else { return false }
      for _ in 0..<count {
        guard let joined = reader.varint().flatMap({ strings.string(UInt32(truncatingIfNeeded: $0)) }) else {
          return false
        }
        if visit(joined) { return true }
      }
      return true
    }
  }

  /// Figures for `/metrics`; `outages` counts the times the cache started bypassing.
  public var figures: (entries: Int, hits: Int, misses: Int, evictions: Int, bypass: Bool, outages: Int) {
    let (entries, evictions) = shards.reduce((0, 0)) { sum, shard in
      shard.state.withLock { (sum.0 + $0.profiles.count, sum.1 + $0.profiles.evictions) }
    }
    return (
      entries, hitCount.load(ordering: .relaxed), missCount.load(ordering: .relaxed), evictions,
      bypassing.load(ordering: .relaxed), outageCount.load(ordering: .relaxed)
    )
  }

  /// Memory the cache holds, measured from its allocations (the record array and index as
  /// allocated, side-table data, the string table), and how many profiles' data did not fit
  /// inline.
  public var footprint: (bytes: Int, overflowed: Int) {
    let (held, overflowed) = shards.reduce((0, 0)) { sum, shard in
      shard.state.withLock { (sum.0 + $0.profiles.bytes, sum.1 + $0.profiles.overflowCount) }
    }
    return (held + strings.bytes, overflowed)
  }
}
