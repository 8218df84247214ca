import Foundation
import Synchronization

/// Time as the SDK sees it: tests substitute a clock they advance by hand, so timeouts and
/// retry back-offs are tested without sleeping.
package protocol SDKClock: Sendable {
  /// The current time.
  func now() -> Date
  /// Suspends for `seconds`; throws `CancellationError` when the task is cancelled.
  func sleep(seconds: Double) async throws
}

/// The real clock.
struct SystemClock: SDKClock {
  func now() -> Date { Date() }

  func sleep(seconds: Double) async throws {
    try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
  }
}

/// The outcome of racing an operation against a deadline.
enum Raced<T: Sendable>: Sendable {
  case value(T)
  case timedOut
}

extension SDKClock {
  /// Runs `operation` against a timer of `seconds`; whichever finishes first answers, and
  /// the other is cancelled. Unlike a task group, this returns at the deadline even when
  /// the operation ignores cancellation (an awaited `Task.value` does), so a slow request
  /// can never hold a caller past its timeout. Errors of `operation` are rethrown.
  func race<T: Sendable>(
    seconds: Double, _ operation: @escaping @Sendable () async throws -> T
  ) async throws -> Raced<T> {
    let first = FirstResult<Raced<T>>()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        first.install(continuation)
        let work = Task {
          do { first.finish(.success(.value(try await operation()))) } catch { first.finish(.failure(error)) }
        }
        let timer = Task {
          do {
            try await self.sleep(seconds: seconds)
            first.finish(.success(.timedOut))
          } catch {}
        }
        first.onFinish {
          work.cancel(); timer.cancel()
        }
      }
    } onCancel: {
      first.finish(.failure(CancellationError()))
    }
  }
}

/// Resumes a continuation with the first result offered; later ones are ignored.
private final class FirstResult<T: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<T, any Error>?
    var result: Result<T, any Error>?
    var cleanup: (@Sendable () -> Void)?
    var done = false
  }

  private let state = Mutex(State())

  func install(_ continuation: CheckedContinuation<T, any Error>) {
    let early = state.withLock { state -> Result<T, any Error>? in
      if let result = state.result { return result }
      state.continuation = continuation
      return nil
    }
    if let early { continuation.resume(with: early) }
  }

  func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
    let runNow = state.withLock { state -> Bool in
      if state.done { return true }
      state.cleanup = cleanup
      return false
    }
    if runNow { cleanup() }
  }

  func finish(_ result: Result<T, any Error>) {
    let (continuation, cleanup) = state.withLock {
      state -> (CheckedContinuation<T, any Error>?, (@Sendable () -> Void)?) in
      guard !state.done else { return (nil, nil) }
      state.done = true
      state.result = result
      defer { state.continuation = nil }
      return (state.continuation, state.cleanup)
    }
    continuation?.resume(with: result)
    cleanup?()
  }
}
