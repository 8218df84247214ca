import Foundation
import TollgateAPI

/// `flow_shown` events waiting for the server. Every event is on disk before
/// `logShowFlow` returns and leaves the disk only when the server has recorded it, so none
/// is lost to a crash or a dead network; each carries an id, so a retry never counts twice.
actor EventQueue {
  /// Events per request (the server takes at most 100).
  static let batchSize = 50
  /// Waits between failed attempts, in seconds; the last repeats.
  static let backoff: [Double] = [2, 4, 8, 16, 32, 60]

  private var pending: [EventPayload]
  private let store: LocalStore
  private let client: BackendClient
  private let clock: any SDKClock
  private var flushing: Task<Void, Never>?
  private var stopped = false

  init(store: LocalStore, client: BackendClient, clock: any SDKClock) {
    self.store = store
    self.client = client
    self.clock = clock
    pending = store.read([EventPayload].self, from: StoredFile.events) ?? []
  }

  var count: Int { pending.count }

  /// Persists the event, then starts sending in the background.
  func enqueue(_ event: EventPayload) {
    pending.append(event)
    store.write(pending, to: StoredFile.events)
    startFlushing()
  }

  /// Sends everything pending, retrying with back-off until the queue is empty.
  func startFlushing() {
    guard flushing == nil, !stopped, !pending.isEmpty else { return }
    flushing = Task { await self.flushLoop() }
  }

  /// Waits until the current flush ends (tests).
  func drained() async { await flushing?.value }

  /// Stops retrying (the runtime is going away); what is pending stays on disk. Returns once a
  /// send in flight has ended, so a runtime launched next on the same disk is the only sender.
  func stop() async {
    stopped = true
    let flush = flushing
    flush?.cancel()
    await flush?.value
    flushing = nil
  }

  private func flushLoop() async {
    var failures = 0
    while !pending.isEmpty && !Task.isCancelled {
      let batch = Array(pending.prefix(Self.batchSize))
      do {
        let result = try await client.sendEvents(EventBatchRequest(events: batch))
        Log.verbose("events: \(result.accepted) recorded, \(result.duplicates) already recorded")
        remove(batch.compactMap(\.eventId))
        failures = 0
      } catch {
        if error.status == 422 {
          // The server will never take the events it names (e.g. a variation removed from the
          // config); the rest of the batch is sent again without them.
          let rejected = Self.rejectedIndexes(error.details, batchSize: batch.count)
          Log.warn("events dropped by the server: \(error.error.message)")
          remove(rejected.isEmpty ? batch.compactMap(\.eventId) : rejected.compactMap { batch[$0].eventId })
          continue
        }
        let wait = Self.backoff[min(failures, Self.backoff.count - 1)]
        failures += 1
        Log.info("events: \(error.error.message); retrying in \(wait) s")
        do { try await clock.sleep(seconds: wait) } catch { break }
      }
    }
    flushing = nil
  }

  /// Indexes named by paths such as `$.events[3].variation_id`.
  static func rejectedIndexes(_ details: [APIError.Detail], batchSize: Int) -> [Int] {
    details.compactMap { detail in
      guard let match = detail.path.firstMatch(of: /^\$\.events\[(\d+)\]/), let index = Int(match.1),
        index < batchSize
      else { return nil }
      return index
    }
  }

  private func remove(_ ids: [String]) {
    let sent = Set(ids)
    pending.removeAll { $0.eventId.map(sent.contains) ?? false }
    store.write(pending, to: StoredFile.events)
  }
}
