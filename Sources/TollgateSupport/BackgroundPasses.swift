import Dispatch
import Foundation
import Synchronization

/// Runs a worker's pass on a timer and whenever `kick()` asks, never two at once: a pass
/// repeats while it found work, and a kick during a pass runs one more.
package final class BackgroundPasses: Sendable {
  private struct State {
    var timer: (any DispatchSourceTimer)?
    /// A one-shot timer for work due before the next tick, and when it fires.
    var wake: (timer: any DispatchSourceTimer, deadline: DispatchTime)?
    var running = false
    var again = false
  }

  private let pass = Mutex<(@Sendable () async -> Int)?>(nil)
  private let state = Mutex(State())
  /// Entered while a pass runs, so `stop()` can let it store its outcomes.
  private let passes = DispatchGroup()

  package init() {}

  /// The pass (bound once its owner exists); it returns how much it handled, 0 ends the round.
  package func bind(_ pass: @escaping @Sendable () async -> Int) { self.pass.withLock { $0 = pass } }

  /// Starts passes every `interval` seconds.
  package func start(interval: TimeInterval) {
    state.withLock { state in
      let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
      timer.schedule(deadline: .now() + interval, repeating: interval)
      timer.setEventHandler { [self] in kick() }
      timer.resume()
      state.timer = timer
    }
  }

  /// Runs a pass once after `seconds` too (only while started): work due before the next tick
  /// need not wait for it. An earlier wake already planned stands.
  package func wake(after seconds: TimeInterval) {
    let deadline = DispatchTime.now() + max(0, seconds)
    state.withLock { state in
      guard state.timer != nil else { return }
      if let planned = state.wake, planned.deadline > .now(), planned.deadline <= deadline { return }
      state.wake?.timer.cancel()
      let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
      timer.schedule(deadline: deadline)
      timer.setEventHandler { [self] in kick() }
      timer.resume()
      state.wake = (timer, deadline)
    }
  }

  /// Runs a pass now; passes never overlap.
  package func kick() {
    let start = state.withLock { state -> Bool in
      if state.running {
        state.again = true
        return false
      }
      state.running = true
      return true
    }
    guard start else { return }
    guard let pass = pass.withLock({ $0 }) else {
      state.withLock { $0.running = false }
      return
    }
    passes.enter()
    // On Dispatch threads of its own, not Swift's cooperative pool (as wide as the machine's
    // cores): a caller that blocks on `stop()` can never starve the pass it waits for.
    Task(executorPreference: DispatchTaskExecutor.shared) { [self] in
      defer { passes.leave() }
      while true {
        while await pass() > 0 {}
        let again = state.withLock { state -> Bool in
          if state.again {
            state.again = false
            return true
          }
          state.running = false
          return false
        }
        if !again { break }
      }
    }
  }

  /// Waits (up to `timeout` seconds) until no pass started by `kick()` is running.
  package func waitUntilIdle(timeout: TimeInterval = 10) {
    _ = passes.wait(timeout: .now() + timeout)
  }

  /// Stops the timer and waits (up to 10 s) for a running pass.
  package func stop() {
    state.withLock { state in
      state.timer?.cancel()
      state.timer = nil
      state.wake?.timer.cancel()
      state.wake = nil
    }
    waitUntilIdle()
  }
}

/// Runs tasks on a concurrent Dispatch queue instead of the cooperative pool.
final class DispatchTaskExecutor: TaskExecutor {
  static let shared = DispatchTaskExecutor()
  private let queue = DispatchQueue(label: "tollgate.workers", qos: .utility, attributes: .concurrent)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
