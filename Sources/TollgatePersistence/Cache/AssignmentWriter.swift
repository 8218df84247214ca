import Foundation
import Synchronization
import TollgateDomain
import TollgateSupport

/// Writes first-time A/B assignments in batches, off the request path. The request answers
/// with the variation the profile's bucket picked and remembers it in memory; one transaction
/// per batch stores many. An assignment is a function of the bucket and the weights, so one
/// lost with the process (at most `delay` seconds' worth) is recomputed identically unless
/// the weights changed in between.
final class AssignmentWriter: Sendable {
  /// Stores a batch (in one transaction).
  typealias Flush = @Sendable ([PendingAssignment]) throws -> Void

  private struct State {
    var pending: [PendingAssignment] = []
    var scheduled = false
    var flush: Flush?
    var closed = false
  }

  /// Seconds between the first queued assignment and the batch write.
  let delay: TimeInterval
  /// Pending writes kept while the database refuses them; beyond it the oldest are dropped
  /// (they are recomputable).
  let limit: Int
  private let state = Mutex(State())
  private let queue = DispatchQueue(label: "tollgate.assignment-writer")
  private let failed: @Sendable (any Error) -> Void
  private let writtenCount = Atomic<Int>(0)
  private let droppedCount = Atomic<Int>(0)

  /// `failed` hears of a batch the database refused (it is retried).
  init(delay: TimeInterval = 0.02, limit: Int = 100_000, failed: @escaping @Sendable (any Error) -> Void = { _ in }) {
    self.delay = delay
    self.limit = limit
    self.failed = failed
  }

  /// Sets what writes a batch (the store, once it is fully built).
  func attach(_ flush: @escaping Flush) { state.withLock { $0.flush = flush } }

  /// Queues an assignment; the batch is written within `delay` seconds.
  func enqueue(_ assignment: PendingAssignment) {
    let schedule = state.withLock { state -> Bool in
      state.pending.append(assignment)
      if state.pending.count > limit {
        state.pending.removeFirst(state.pending.count - limit)
        droppedCount.wrappingAdd(1, ordering: .relaxed)
      }
      guard !state.scheduled, !state.closed else { return false }
      state.scheduled = true
      return true
    }
    if schedule { queue.asyncAfter(deadline: .now() + delay) { self.flushScheduled() } }
  }

  /// Writes everything queued now (at shutdown, and in tests).
  func flush() {
    queue.sync { _ = self.write() }
  }

  /// Writes what is queued and stops scheduling.
  func close() {
    flush()
    state.withLock { $0.closed = true }
  }

  /// Assignments written, and dropped because the database refused them for too long.
  var figures: (pending: Int, written: Int, dropped: Int) {
    (
      state.withLock { $0.pending.count }, writtenCount.load(ordering: .relaxed),
      droppedCount.load(ordering: .relaxed)
    )
  }

  private func flushScheduled() {
    let retry = write()
    let again = state.withLock { state -> Bool in
      state.scheduled = !state.pending.isEmpty && !state.closed
      return state.scheduled
    }
    if again { queue.asyncAfter(deadline: .now() + (retry ? 1 : delay)) { self.flushScheduled() } }
  }

  /// Returns true when the database refused the batch (it is queued again).
  @discardableResult
  private func write() -> Bool {
    let (batch, flush) = state.withLock { state in
      defer { state.pending = [] }
      return (state.pending, state.flush)
    }
    guard !batch.isEmpty, let flush else { return false }
    do {
      try flush(batch)
      writtenCount.wrappingAdd(batch.count, ordering: .relaxed)
      return false
    } catch {
      failed(error)
      state.withLock { state in
        state.pending = batch + state.pending
        if state.pending.count > limit {
          droppedCount.wrappingAdd(state.pending.count - limit, ordering: .relaxed)
          state.pending.removeFirst(state.pending.count - limit)
        }
      }
      return true
    }
  }
}
