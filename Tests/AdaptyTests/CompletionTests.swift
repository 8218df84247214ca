import Foundation
import Synchronization
import Testing

@testable import Adapty

/// The completion-handler forms: the async call's outcome, on the configured queue.
@Suite("Completion handlers")
struct CompletionTests {
  /// Runs `start` and waits until its completion handler ran; returns whether it ran on `queue`.
  private func delivered(
    on queue: DispatchQueue, _ start: @escaping (@escaping @Sendable (Bool) -> Void) -> Void
  ) async -> Bool {
    await withCheckedContinuation { continuation in
      start { onQueue in continuation.resume(returning: onQueue) }
    }
  }

  @Test("a result, a thrown AdaptyError, or nil for success reaches the handler on the callback queue")
  func outcomes() async {
    let queue = DispatchQueue(label: "callbacks")
    let key = DispatchSpecificKey<Int>()
    queue.setSpecific(key: key, value: 1)
    let values = Mutex<[String]>([])
    #expect(
      await delivered(on: queue) { done in
        AdaptyCallbacks.run(
          { (result: AdaptyResult<Int>) in
            values.withLock { $0.append("\(result)") }
            done(DispatchQueue.getSpecific(key: key) == 1)
          }, on: queue
        ) { () async throws(AdaptyError) in 7 }
      })
    #expect(
      await delivered(on: queue) { done in
        AdaptyCallbacks.run(
          { (error: AdaptyError?) in
            values.withLock { $0.append("\(error?.errorCode ?? 0)") }
            done(DispatchQueue.getSpecific(key: key) == 1)
          }, on: queue
        ) { () async throws(AdaptyError) in throw AdaptyError(.wrongParam, "no") }
      })
    #expect(
      await delivered(on: queue) { done in
        AdaptyCallbacks.run(
          { (error: AdaptyError?) in
            values.withLock { $0.append(error == nil ? "nil" : "error") }
            done(true)
          }, on: queue
        ) { () async throws(AdaptyError) in }
      })
    #expect(values.withLock { $0 } == ["success(7)", "3001", "nil"])
  }
}
