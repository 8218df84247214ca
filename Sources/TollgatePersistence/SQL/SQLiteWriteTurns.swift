import CSQLite
import Foundation

/// Wakes this process's SQLite writers that wait for the write lock as soon as another of its
/// connections lets the lock go. SQLite's own busy handler sleeps 1, 2, 5 … up to 100 ms
/// between tries whatever happens meanwhile: with 64 profile creations at once the lock sat
/// free while waiters slept, and the slowest waited over a second (p99 0.9–1.6 s, some past
/// wrk's 2 s timeout). Here a waiter sleeps until a release or 5 ms, whichever comes first, so
/// a writer of another process (a second `tollgate`, the command line) is still noticed.
final class SQLiteWriteTurns: @unchecked Sendable {
  /// One per process: every connection of every store in it.
  static let shared = SQLiteWriteTurns()

  /// The longest a waiter sleeps without a release, and the longest it waits in all.
  static let poll = 0.005
  static let patience = 10.0

  private let condition = NSCondition()
  private var releases: UInt64 = 0

  /// A connection let the write lock go (committed, rolled back, or wrote outside a transaction).
  func released() {
    condition.lock()
    releases &+= 1
    condition.broadcast()
    condition.unlock()
  }

  /// Waits for the next release or `poll`, whichever comes first; false once a wait that
  /// began at `since` has lasted `patience` (SQLite then answers busy).
  func wait(since: Date) -> Bool {
    let now = Date()
    guard now.timeIntervalSince(since) < Self.patience else { return false }
    condition.lock()
    let seen = releases
    let until = now.addingTimeInterval(Self.poll)
    while releases == seen, condition.wait(until: until) {}
    condition.unlock()
    return true
  }

  /// A connection's busy handler state: when its current wait began.
  final class Waiter {
    var since = Date()
  }

  /// Installs the handler on a connection; `waiter` must live as long as the connection.
  static func install(on handle: OpaquePointer?, _ waiter: Waiter) -> Int32 {
    sqlite3_busy_handler(
      handle,
      { context, count in
        guard let context else { return 0 }
        let waiter = Unmanaged<Waiter>.fromOpaque(context).takeUnretainedValue()
        if count == 0 { waiter.since = Date() }
        return SQLiteWriteTurns.shared.wait(since: waiter.since) ? 1 : 0
      }, Unmanaged.passUnretained(waiter).toOpaque())
  }
}
