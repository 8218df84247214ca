import Dispatch
import Foundation
import Synchronization

/// Stores the tokens of requests that arrive together in one transaction (group commit): the
/// first request in writes everything waiting, the others wait for that commit, and whoever
/// arrived meanwhile is written by the next. A request is answered only after its token is
/// committed, so an accepted token is never lost; a quiet server writes each token at once.
final class AttributionIntake: Sendable {
  /// Stores a batch in one transaction, answering in the order given.
  typealias Write = @Sendable ([QueuedToken]) throws -> [(AttributionJob, created: Bool)]

  /// One waiting request: told its outcome, or that it writes the next batch.
  private final class Slot: @unchecked Sendable {
    enum Outcome {
      case stored(Result<(AttributionJob, created: Bool), any Error>)
      case lead
    }

    let token: QueuedToken
    let ready = DispatchSemaphore(value: 0)
    /// Set once before `ready` is signalled (or by the slot's own thread), read after.
    var outcome: Outcome?

    init(_ token: QueuedToken) { self.token = token }
  }

  private struct State {
    var waiting: [Slot] = []
    var writing = false
  }

  /// Tokens written per transaction at most.
  let batchLimit: Int
  private let write: Write
  private let state = Mutex(State())
  private let batchCount = Atomic<Int>(0)
  private let tokenCount = Atomic<Int>(0)

  /// `write` stores one batch; `batchLimit` bounds a transaction.
  init(batchLimit: Int = 256, write: @escaping Write) {
    self.batchLimit = batchLimit
    self.write = write
  }

  /// Stores `token` (in a batch with whatever arrived with it) and returns its job.
  func enqueue(_ token: QueuedToken) throws -> (AttributionJob, created: Bool) {
    let slot = Slot(token)
    let leads = state.withLock { state -> Bool in
      state.waiting.append(slot)
      guard !state.writing else { return false }
      state.writing = true
      return true
    }
    if !leads { slot.ready.wait() }
    if case .stored(let result)? = slot.outcome { return try result.get() }
    // This request writes: everything waiting (itself included), then hands the pen on.
    let batch = state.withLock { state -> [Slot] in
      let taken = Array(state.waiting.prefix(batchLimit))
      state.waiting.removeFirst(taken.count)
      return taken
    }
    store(batch)
    let next = state.withLock { state -> Slot? in
      guard let first = state.waiting.first else {
        state.writing = false
        return nil
      }
      return first
    }
    if let next {
      next.outcome = .lead
      next.ready.signal()
    }
    guard case .stored(let result)? = slot.outcome else {
      throw StoreError.database("a token's batch was written without it")
    }
    return try result.get()
  }

  /// Requests waiting for a batch now.
  var waiting: Int { state.withLock { $0.waiting.count } }

  /// Batches written and tokens in them.
  var figures: (batches: Int, tokens: Int) {
    (batchCount.load(ordering: .relaxed), tokenCount.load(ordering: .relaxed))
  }

  /// Writes a batch; when the transaction fails, each token is tried alone so one bad token
  /// (or a lost race) fails only its own request.
  private func store(_ batch: [Slot]) {
    let outcomes: [Result<(AttributionJob, created: Bool), any Error>]
    do {
      let stored = try write(batch.map(\.token))
      guard stored.count == batch.count else {
        throw StoreError.database("a batch answered \(stored.count) of \(batch.count)")
      }
      outcomes = stored.map { .success($0) }
    } catch {
      outcomes =
        batch.count == 1
        ? [.failure(error)]
        : batch.map { slot in
          Result { () throws -> (AttributionJob, created: Bool) in
            guard let stored = try write([slot.token]).first else {
              throw StoreError.database("a batch of one stored nothing")
            }
            return stored
          }
        }
    }
    batchCount.wrappingAdd(1, ordering: .relaxed)
    tokenCount.wrappingAdd(batch.count, ordering: .relaxed)
    for (slot, outcome) in zip(batch, outcomes) {
      slot.outcome = .stored(outcome)
      slot.ready.signal()
    }
  }
}
