import Synchronization
import TollgateSupport

/// Strings many profiles share (versions, locales, states, placement and variation ids), kept
/// once and named by a small number, so a packed profile holds a byte or two instead of the
/// text. Append-only and bounded: once full, new strings are simply not interned (the packer
/// stores them inline). Readers take no lock: an id is published only after its string is
/// written (release/acquire on the count).
package final class StringTable: @unchecked Sendable {
  /// How many strings it holds at most.
  let capacity: Int
  private let storage: UnsafeMutablePointer<String>
  private let published = Atomic<Int>(0)
  private let ids = Mutex<[String: UInt32]>([:])

  package init(capacity: Int = 1 << 16) {
    self.capacity = capacity
    storage = .allocate(capacity: capacity)
  }

  deinit {
    storage.deinitialize(count: published.load(ordering: .acquiring))
    storage.deallocate()
  }

  /// How many strings are interned.
  var count: Int { published.load(ordering: .acquiring) }

  /// The id of `text`, interning it when fewer than `limit` strings are held (by default, the
  /// capacity); nil when it is not interned and there is no room.
  package func id(for text: String, within limit: Int? = nil) -> UInt32? {
    ids.withLock { ids in
      if let known = ids[text] { return known }
      let next = published.load(ordering: .relaxed)
      guard next < min(limit ?? capacity, capacity) else { return nil }
      (storage + next).initialize(to: text)
      ids[text] = UInt32(next)
      published.store(next + 1, ordering: .releasing)
      return UInt32(next)
    }
  }

  /// The string of an id this table handed out.
  package func string(_ id: UInt32) -> String? {
    let index = Int(id)
    guard index < published.load(ordering: .acquiring) else { return nil }
    return storage[index]
  }

  /// Bytes held: the slots and each interned string's text beyond what fits inline.
  package var bytes: Int {
    let count = self.count
    var total = capacity * MemoryLayout<String>.stride + count * 48
    for index in 0..<count where storage[index].utf8.count > 15 { total += storage[index].utf8.count }
    return total
  }
}
