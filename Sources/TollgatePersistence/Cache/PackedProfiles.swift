import Foundation
import TollgateDomain
import TollgateSupport

/// The profile cache's storage: one fixed-size record per profile (its key, 32 bytes of packed
/// data inline, its schema, a reference bit) in one array, found through an open-addressing
/// table of 4-byte indexes — no per-profile allocation, no per-profile dictionary. Data longer
/// than 32 bytes goes to a side table. Evicts by the CLOCK algorithm. Not thread-safe: the
/// cache holds it under its lock.
struct PackedProfiles {
  struct Record {
    var key: PackedKey
    var words: PackedBytes.Words
    /// 0: free.
    var schema: UInt32
    /// Bytes inline; `overflowed`: in the side table.
    var count: UInt8
    var referenced: Bool
  }

  static let overflowed: UInt8 = .max

  let capacity: Int
  private(set) var records: [Record] = []
  private var table: [Int32]
  private let mask: Int
  private var free: [Int32] = []
  private var overflow: [Int32: [UInt8]] = [:]
  private var hand = 0
  /// Profiles held.
  private(set) var count = 0
  /// Records evicted to make room.
  private(set) var evictions = 0

  init(capacity: Int) {
    self.capacity = capacity
    // At most half full: short probe sequences.
    var size = 1
    while size < capacity * 2 { size <<= 1 }
    table = capacity > 0 ? Array(repeating: -1, count: size) : []
    mask = size - 1
  }

  /// The record index holding `key`.
  func find(_ key: PackedKey) -> Int? {
    guard capacity > 0 else { return nil }
    var position = Int(truncatingIfNeeded: key.mixed) & mask
    while true {
      let index = table[position]
      if index < 0 { return nil }
      if records[Int(index)].key == key { return Int(index) }
      position = (position + 1) & mask
    }
  }

  /// Marks a record used (CLOCK's reference bit).
  mutating func touch(_ index: Int) {
    if !records[index].referenced { records[index].referenced = true }
  }

  /// The schema and bytes of a record.
  func read(_ index: Int) -> (schema: UInt32, bytes: PackedBytes) {
    let record = records[index]
    if record.count == Self.overflowed { return (record.schema, .heap(overflow[Int32(index)] ?? [])) }
    return (record.schema, .inline(record.words, count: record.count))
  }

  /// Replaces a record's bytes (and schema).
  mutating func write(_ index: Int, schema: UInt32, bytes: [UInt8]) {
    records[index].schema = schema
    if let words = PackedBytes.words(bytes) {
      records[index].words = words
      records[index].count = UInt8(bytes.count)
      overflow[Int32(index)] = nil
    } else {
      records[index].words = (0, 0, 0, 0)
      records[index].count = Self.overflowed
      overflow[Int32(index)] = bytes
    }
  }

  /// Stores a profile not held yet, evicting one when full.
  mutating func insert(_ key: PackedKey, schema: UInt32, bytes: [UInt8]) {
    guard capacity > 0 else { return }
    let index: Int
    if let freed = free.popLast() {
      index = Int(freed)
    } else if records.count < capacity {
      // Grown an eighth at a time: little room allocated and unused.
      if records.count == records.capacity {
        records.reserveCapacity(min(capacity, records.count + max(1_024, records.count / 8)))
      }
      records.append(Record(key: key, words: (0, 0, 0, 0), schema: 0, count: 0, referenced: false))
      index = records.count - 1
    } else {
      evictOne()
      index = Int(free.removeLast())
    }
    records[index].key = key
    records[index].referenced = false
    write(index, schema: schema, bytes: bytes)
    var position = Int(truncatingIfNeeded: key.mixed) & mask
    while table[position] >= 0 { position = (position + 1) & mask }
    table[position] = Int32(index)
    count += 1
  }

  /// Evicts one profile by CLOCK: the first one past the hand not used since the hand last
  /// passed (its slot is reused first). Nothing happens when none is held.
  mutating func evictOne() {
    guard count > 0 else { return }
    while records[hand].schema == 0 || records[hand].referenced {
      records[hand].referenced = false
      hand = (hand + 1) % records.count
    }
    remove(hand)
    evictions += 1
    hand = (hand + 1) % records.count
  }

  /// Frees the record at `index` (its slot is reused first).
  mutating func remove(_ index: Int) {
    guard records[index].schema != 0 else { return }
    var position = Int(truncatingIfNeeded: records[index].key.mixed) & mask
    while table[position] != Int32(index) { position = (position + 1) & mask }
    // Backward-shift deletion: move later members of the probe run into the hole.
    var hole = position
    var next = position
    while true {
      next = (next + 1) & mask
      let moved = table[next]
      if moved < 0 { break }
      let home = Int(truncatingIfNeeded: records[Int(moved)].key.mixed) & mask
      let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if !stays {
        table[hole] = moved
        hole = next
      }
    }
    table[hole] = -1
    records[index].schema = 0
    records[index].referenced = false
    overflow[Int32(index)] = nil
    free.append(Int32(index))
    count -= 1
  }

  /// Forgets everything (keeps the allocations).
  mutating func removeAll() {
    records.removeAll(keepingCapacity: true)
    table = Array(repeating: -1, count: table.count)
    free.removeAll()
    overflow.removeAll()
    hand = 0
    count = 0
  }

  /// Records whose data did not fit inline.
  var overflowCount: Int { overflow.count }

  /// Bytes held: the record array and index table as allocated, side-table data with its
  /// array headers, and free-list space.
  var bytes: Int {
    records.capacity * MemoryLayout<Record>.stride + table.count * MemoryLayout<Int32>.stride
      + free.capacity * MemoryLayout<Int32>.stride
      + overflow.values.reduce(0) { $0 + 32 + ($1.count + 15) / 16 * 16 + 24 }
  }
}

/// A cached profile's key: its app and its UUID as two words (24 bytes, no string to keep).
struct PackedKey: Hashable, Sendable {
  let appId: Int64
  let high: UInt64
  let low: UInt64

  /// Nil when `id` is not a UUID (such a profile is never cached).
  init?(appId: Int64, id: String) {
    guard let (high, low) = ProfileId.words(id) else { return nil }
    self.appId = appId
    self.high = high
    self.low = low
  }

  /// A well-mixed hash for the open-addressing table (UUIDs are mostly random already;
  /// sequential ids are not).
  var mixed: UInt64 {
    var value = high ^ (low &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(bitPattern: appId)
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
