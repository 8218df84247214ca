import Dispatch
import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Stores the tokens of requests that arrive together in one transaction (group commit). One
/// writer (a serial queue of its own) takes everything waiting, up to `batchLimit`, writes it,
/// tells each request its outcome, and goes on while tokens keep arriving; a quiet server
/// writes each token at once. A request learns its outcome only after its token is committed,
/// so an accepted token is never lost. Requests that do not block (`Prefer: respond-async`)
/// hold no thread meanwhile: the more arrive, the larger the batches.
final class AttributionIntake: Sendable {
  /// Stores a batch in one transaction, answering in the order given.
  typealias Write = @Sendable ([QueuedToken]) throws -> [(AttributionJob, created: Bool)]
  /// Hears a token's outcome (on the writer's queue: keep it short or hand the work on).
  typealias Completion = @Sendable (Result<(AttributionJob, created: Bool), any Error>) -> Void

  private struct Waiting {
    let token: QueuedToken
    let completion: Completion
  }

  private struct State {
    var waiting: [Waiting] = []
    var writing = false
  }

  /// Tokens written per transaction at most.
  let batchLimit: Int
  private let write: Write
  private let state = Mutex(State())
  private let queue = DispatchQueue(label: "tollgate.attribution-intake")
  private let batchCount = Atomic<Int>(0)
  private let tokenCount = Atomic<Int>(0)

  /// `write` stores one batch; `batchLimit` bounds a transaction.
  init(batchLimit: Int = 256, write: @escaping Write) {
    self.batchLimit = batchLimit
    self.write = write
  }

  /// Stores `token` in the next batch; `completion` hears its job once committed.
  func enqueue(_ token: QueuedToken, then completion: @escaping Completion) {
    let starts = state.withLock { state -> Bool in
      state.waiting.append(Waiting(token: token, completion: completion))
      guard !state.writing else { return false }
      state.writing = true
      return true
    }
    if starts { queue.async { self.drain() } }
  }

  /// Stores `token` and waits for its job (for callers that answer with it).
  func enqueue(_ token: QueuedToken) throws -> (AttributionJob, created: Bool) {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<(AttributionJob, created: Bool), any Error>?>(nil)
    enqueue(token) { result in
      outcome.withLock { $0 = result }
      done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { throw StoreError.database("a token was not written") }
    return try result.get()
  }

  /// Requests waiting for a batch now.
  var waiting: Int { state.withLock { $0.waiting.count } }

  /// Batches written and tokens in them.
  var figures: (batches: Int, tokens: Int) {
    (batchCount.load(ordering: .relaxed), tokenCount.load(ordering: .relaxed))
  }

  /// Writes batches until nothing waits.
  private func drain() {
    while true {
      let batch = state.withLock { state -> [Waiting] in
        let taken = Array(state.waiting.prefix(batchLimit))
        state.waiting.removeFirst(taken.count)
        if taken.isEmpty { state.writing = false }
        return taken
      }
      guard !batch.isEmpty else { return }
      store(batch)
    }
  }

  /// Writes a batch; when the transaction fails, each token is tried alone so one bad token
  /// (or a lost race) fails only its own request.
  private func store(_ batch: [Waiting]) {
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
        : batch.map { waiting in
          Result { () throws -> (AttributionJob, created: Bool) in
            guard let stored = try write([waiting.token]).first else {
              throw StoreError.database("a batch of one stored nothing")
            }
            return stored
          }
        }
    }
    batchCount.wrappingAdd(1, ordering: .relaxed)
    tokenCount.wrappingAdd(batch.count, ordering: .relaxed)
    for (waiting, outcome) in zip(batch, outcomes) { waiting.completion(outcome) }
  }
}
