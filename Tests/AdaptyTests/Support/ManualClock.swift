import Foundation
import Synchronization

@testable import Adapty

/// A clock that moves only when the test says so. Sleepers wake when `advance` passes
/// their deadline; `sleepers(atLeast:)` lets a test wait until the code under test sleeps.
final class ManualClock: SDKClock {
  private struct Sleeper {
    let id: UUID
    let deadline: Date
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now: Date
    var sleepers: [Sleeper] = []
    var durations: [Double] = []
  }

  private let state: Mutex<State>
  private let condition = Condition()

  init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { state = Mutex(State(now: start)) }

  func now() -> Date { state.withLock { $0.now } }

  /// Every duration anyone slept for, in order.
  var sleptDurations: [Double] { state.withLock { $0.durations } }

  func sleep(seconds: Double) async throws {
    let id = UUID()
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let cancelled = state.withLock { state -> Bool in
          state.durations.append(seconds)
          if Task.isCancelled { return true }
          state.sleepers.append(
            Sleeper(id: id, deadline: state.now.addingTimeInterval(seconds), continuation: continuation))
          return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        condition.changed()
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves time forward and wakes every sleeper whose deadline has come.
  func advance(by seconds: Double) {
    let due = state.withLock { state -> [Sleeper] in
      state.now = state.now.addingTimeInterval(seconds)
      let due = state.sleepers.filter { $0.deadline <= state.now }
      state.sleepers.removeAll { $0.deadline <= state.now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  /// Suspends until at least `count` sleepers are waiting.
  func sleepers(atLeast count: Int) async {
    await condition.wait { self.state.withLock({ $0.sleepers.count }) >= count }
  }
}
