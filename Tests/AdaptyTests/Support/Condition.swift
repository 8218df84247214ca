import Foundation
import Synchronization

/// Lets a test await a condition on shared state without polling: state owners call
/// `changed()` after each change (outside their own lock), and waiters whose condition now
/// holds resume.
final class Condition: Sendable {
  private struct Waiter {
    let id: UUID
    let check: @Sendable () -> Bool
    let continuation: CheckedContinuation<Void, Never>
  }

  private let waiters = Mutex<[Waiter]>([])

  /// Returns once `check` holds.
  func wait(until check: @escaping @Sendable () -> Bool) async {
    if check() { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = waiters.withLock { waiters -> Bool in
        if check() { return true }
        waiters.append(Waiter(id: UUID(), check: check, continuation: continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Re-evaluates every waiter.
  func changed() {
    let due = waiters.withLock { waiters -> [Waiter] in
      let due = waiters.filter { $0.check() }
      let ids = Set(due.map(\.id))
      waiters.removeAll { ids.contains($0.id) }
      return due
    }
    for waiter in due { waiter.continuation.resume() }
  }
}

/// Yields until an asynchronous `check` holds, a bounded number of times (for effects that
/// happen inside actors, after the event a test can observe).
func eventually(isolation: isolated (any Actor)? = #isolation, _ check: () async -> Bool) async -> Bool {
  for _ in 0..<10_000 {
    if await check() { return true }
    await Task.yield()
  }
  return false
}
