import Foundation
import Synchronization
import TollgateSupport

/// A response that is not known yet: a handler returns `Response.deferred(…)` and completes
/// it later from any thread. Meanwhile libmicrohttpd suspends the connection, so a long
/// poll holds no thread.
public final class DeferredResponse: Sendable {
  private struct State {
    var response: Response?
    var resume: (@Sendable () -> Void)?
    var onComplete: [@Sendable (Response) -> Void] = []
  }

  private let state = Mutex(State())

  /// A response to complete later.
  public init() {}

  /// Delivers the response; only the first call counts. Returns whether this call did.
  @discardableResult
  public func complete(_ response: Response) -> Bool {
    typealias Hooks = (resume: (@Sendable () -> Void)?, observers: [@Sendable (Response) -> Void])
    let hooks = state.withLock { state -> Hooks? in
      guard state.response == nil else { return nil }
      state.response = response
      defer {
        state.resume = nil
        state.onComplete = []
      }
      return (state.resume, state.onComplete)
    }
    guard let hooks else { return false }
    for observer in hooks.observers { observer(response) }
    hooks.resume?()
    return true
  }

  /// The response once completed.
  public var response: Response? { state.withLock { $0.response } }

  /// Runs `observer` with the response when it is completed (at once if it is).
  public func onComplete(_ observer: @escaping @Sendable (Response) -> Void) {
    let done = state.withLock { state -> Response? in
      if let response = state.response { return response }
      state.onComplete.append(observer)
      return nil
    }
    if let done { observer(done) }
  }

  /// Installs the connection's resume hook; returns true when the response is already
  /// there (the caller then resumes at once).
  func attach(resume: @escaping @Sendable () -> Void) -> Bool {
    state.withLock { state in
      if state.response != nil { return true }
      state.resume = resume
      return false
    }
  }
}
