import Foundation
import Synchronization

/// The delegate, held weakly and process-wide so it can be set before activation.
final class DelegateHolder: Sendable {
  static let shared = DelegateHolder()

  private struct Weak: @unchecked Sendable {
    weak var value: (any AdaptyDelegate)?
  }

  private let current = Mutex(Weak())

  var delegate: (any AdaptyDelegate)? {
    get { current.withLock { $0.value } }
    set { current.withLock { $0 = Weak(value: newValue) } }
  }
}

/// Hands every new profile version to the delegate and to `profileUpdates` streams, in
/// order and at most once per version for each receiver.
actor ProfileBroadcaster {
  private(set) var current: AdaptyProfile?
  private var streams: [UUID: AsyncStream<AdaptyProfile>.Continuation] = [:]
  private var delivered: (delegate: ObjectIdentifier, profileId: String, version: Int64)?
  private let delegates: DelegateHolder

  init(delegates: DelegateHolder = .shared) { self.delegates = delegates }

  /// Publishes `profile` when it is newer than the current one (or another profile).
  func publish(_ profile: AdaptyProfile) {
    if let current, current.profileId == profile.profileId, current.version >= profile.version { return }
    current = profile
    // The delegate first: whoever reads a stream can rely on the delegate having it too.
    deliverToDelegate()
    for continuation in streams.values { continuation.yield(profile) }
  }

  /// Gives the delegate the current profile unless it already has this version.
  func deliverToDelegate() {
    guard let profile = current, let delegate = delegates.delegate else { return }
    let identity = ObjectIdentifier(delegate)
    if let delivered, delivered.delegate == identity, delivered.profileId == profile.profileId,
      delivered.version >= profile.version
    {
      return
    }
    delivered = (identity, profile.profileId, profile.version)
    delegate.didLoadLatestProfile(profile)
  }

  /// Adds a stream: it gets the current profile at once, then every change.
  func subscribe(_ continuation: AsyncStream<AdaptyProfile>.Continuation) {
    let id = UUID()
    streams[id] = continuation
    if let current { continuation.yield(current) }
    continuation.onTermination = { [weak self] _ in
      Task { await self?.unsubscribe(id) }
    }
  }

  private func unsubscribe(_ id: UUID) { streams[id] = nil }

  /// Ends every stream (the runtime is going away).
  func finish() {
    for continuation in streams.values { continuation.finish() }
    streams = [:]
  }
}
