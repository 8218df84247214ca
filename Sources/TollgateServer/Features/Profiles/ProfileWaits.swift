import Dispatch
import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Long polls waiting for a profile to change (`wait_for=apple_ads`). Each wait is a
/// deferred response on a suspended connection: no thread waits. A change made by this
/// instance re-checks its waits at once; a change made by another instance sharing the
/// database is noticed by a re-check every `recheckInterval` while any wait is open; a
/// timer answers the rest when their time is up.
public final class ProfileWaits: Sendable {
  /// The longest wait a client may ask for.
  public static let maximumSeconds: Double = 30
  /// How often open waits are re-checked against the store (changes from other instances).
  static let recheckInterval: Double = 0.25

  private let recheck = Mutex<(any DispatchSourceTimer)?>(nil)

  init() {
    recheck.withLock { timer in
      let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
      source.schedule(deadline: .now() + Self.recheckInterval, repeating: Self.recheckInterval)
      source.setEventHandler { [weak self] in self?.recheckAll() }
      source.resume()
      timer = source
    }
  }

  deinit { recheck.withLock { $0?.cancel() } }

  private func recheckAll() {
    let keys = waiters.withLock { Array($0.keys) }
    for key in keys { changed(key) }
  }

  struct Key: Hashable, Sendable {
    let appId: Int64
    let profileId: String
  }

  private struct Waiter: Sendable {
    let id: UUID
    let attempt: @Sendable () -> Response?
    let timeUp: @Sendable () -> Response
    let deferred: DeferredResponse
  }

  private let waiters = Mutex<[Key: [Waiter]]>([:])

  /// Answers at once when `attempt` has an answer; otherwise suspends until a change makes
  /// `attempt` answer or `seconds` pass, then answers with `timeUp`.
  func wait(
    _ key: Key, seconds: Double, attempt: @escaping @Sendable () -> Response?,
    timeUp: @escaping @Sendable () -> Response
  ) -> Response {
    if let now = attempt() { return now }
    // Shutting down: a wait that arrives now would hold a suspended connection the server
    // must not stop with; it is answered with what is known.
    if closing.load(ordering: .relaxed) { return timeUp() }
    let waiter = Waiter(id: UUID(), attempt: attempt, timeUp: timeUp, deferred: DeferredResponse())
    waiters.withLock { $0[key, default: []].append(waiter) }
    // A change (or shutdown) between the first attempt and the registration would otherwise be missed.
    if closing.load(ordering: .relaxed) {
      finish(key, waiter.id, with: nil)
    } else if let now = attempt() {
      finish(key, waiter.id, with: now)
    } else {
      let delay = min(max(seconds, 0), Self.maximumSeconds)
      DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
        finish(key, waiter.id, with: nil)
      }
    }
    return .deferred(waiter.deferred)
  }

  /// The profile changed: answer every wait on it that is now satisfied.
  func changed(_ key: Key) {
    let candidates = waiters.withLock { $0[key] ?? [] }
    for waiter in candidates {
      if let response = waiter.attempt() { finish(key, waiter.id, with: response) }
    }
  }

  private let closing = Atomic<Bool>(false)

  /// Answers every wait with its time-up answer, and every later one at once (shutdown).
  func finishAll() {
    closing.store(true, ordering: .relaxed)
    let all = waiters.withLock { waiters -> [(Key, Waiter)] in
      defer { waiters = [:] }
      return waiters.flatMap { key, list in list.map { (key, $0) } }
    }
    for (_, waiter) in all { waiter.deferred.complete(waiter.timeUp()) }
  }

  /// Waits not answered yet.
  var count: Int { waiters.withLock { $0.values.reduce(0) { $0 + $1.count } } }

  private func finish(_ key: Key, _ id: UUID, with response: Response?) {
    let waiter = waiters.withLock { waiters -> Waiter? in
      guard var list = waiters[key], let index = list.firstIndex(where: { $0.id == id }) else { return nil }
      let waiter = list.remove(at: index)
      waiters[key] = list.isEmpty ? nil : list
      return waiter
    }
    guard let waiter else { return }
    waiter.deferred.complete(response ?? waiter.timeUp())
  }
}
