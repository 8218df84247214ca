import Foundation
import Synchronization

/// The process-wide activation state behind the static `Adapty` API.
final class Facade: Sendable {
  static let shared = Facade()

  private enum State {
    case idle
    case activating(Task<AdaptyRuntime, Never>)
    case active(AdaptyRuntime)
  }

  private struct Guarded {
    var state: State = .idle
    /// Streams opened before activation, attached when it happens.
    var waitingStreams: [@Sendable (AdaptyRuntime) async -> Void] = []
  }

  private let guarded = Mutex(Guarded())
  private let fallback: FallbackFlows
  private let delegates: DelegateHolder

  /// A facade over the given process-wide holders (tests pass their own).
  init(fallback: FallbackFlows = .shared, delegates: DelegateHolder = .shared) {
    self.fallback = fallback
    self.delegates = delegates
  }

  /// Activates once; a second call throws `activateOnceError`.
  func activate(_ configuration: AdaptyConfiguration) async throws(AdaptyError) {
    await finish(try start(configuration), configuration)
  }

  /// Starts activating, at once and synchronously: from here on every call waits for this
  /// activation (the completion-handler form returns before it ends). A second activation
  /// throws `activateOnceError`.
  func start(_ configuration: AdaptyConfiguration) throws(AdaptyError) -> Task<AdaptyRuntime, Never> {
    let task: Task<AdaptyRuntime, Never>? = guarded.withLock { guarded in
      guard case .idle = guarded.state else { return nil }
      let (fallback, delegates) = (self.fallback, self.delegates)
      let task = Task { await AdaptyRuntime.launch(configuration, fallback: fallback, delegates: delegates) }
      guarded.state = .activating(task)
      return task
    }
    guard let task else { throw AdaptyError.activateOnce() }
    if let level = configuration.logLevel { SDKLogger.shared.level = level }
    AdaptyCallbacks.use(configuration.callbackDispatchQueue)
    return task
  }

  /// Ends an activation `start` began: the runtime is active, waiting streams attached.
  func finish(_ task: Task<AdaptyRuntime, Never>, _ configuration: AdaptyConfiguration) async {
    let runtime = await task.value
    let streams = guarded.withLock { guarded in
      guarded.state = .active(runtime)
      defer { guarded.waitingStreams = [] }
      return guarded.waitingStreams
    }
    for attach in streams { await attach(runtime) }
    let profileId = await runtime.profiles.profileId
    Log.info("activated (profile \(profileId), server \(configuration.backendBaseUrl))")
  }

  /// The runtime; waits for an activation in progress; `notActivated` when there is none.
  func runtime() async throws(AdaptyError) -> AdaptyRuntime {
    let state = guarded.withLock { $0.state }
    switch state {
    case .active(let runtime): return runtime
    case .activating(let task): return await task.value
    case .idle: throw AdaptyError.notActivated()
    }
  }

  /// Whether `activate` has been called (it may still be running).
  var activationStarted: Bool {
    guarded.withLock { guarded in
      if case .idle = guarded.state { return false }
      return true
    }
  }

  /// The runtime if activation has finished.
  var activeRuntime: AdaptyRuntime? {
    guarded.withLock { guarded in
      if case .active(let runtime) = guarded.state { return runtime }
      return nil
    }
  }

  /// A stream of profiles: the current one first, then every change; streams opened before
  /// activation start when it happens.
  func profileStream() -> AsyncStream<AdaptyProfile> {
    let (stream, continuation) = AsyncStream<AdaptyProfile>.makeStream()
    attach { runtime in await runtime.broadcaster.subscribe(continuation) }
    return stream
  }

  /// Pending App Store message types now, then after each change; empty with `.auto`.
  func storeMessageStream() -> AsyncStream<Set<AdaptyStoreMessageType>> {
    let (stream, continuation) = AsyncStream<Set<AdaptyStoreMessageType>>.makeStream()
    attach { runtime in
      if let queue = runtime.storeMessages {
        await queue.subscribe(continuation)
      } else {
        continuation.yield([])
      }
    }
    return stream
  }

  /// Runs `attach` with the runtime now, or at activation.
  private func attach(_ attach: @escaping @Sendable (AdaptyRuntime) async -> Void) {
    let runtime: AdaptyRuntime? = guarded.withLock { guarded in
      if case .active(let runtime) = guarded.state { return runtime }
      guarded.waitingStreams.append(attach)
      return nil
    }
    if let runtime { Task { await attach(runtime) } }
  }

  /// Forgets the activation so a test can activate again ("the next launch").
  func reset() async {
    let state = guarded.withLock { guarded -> State in
      defer { guarded = Guarded() }
      return guarded.state
    }
    switch state {
    case .active(let runtime): await runtime.shutdown()
    case .activating(let task): await task.value.shutdown()
    case .idle: break
    }
  }
}
