import Foundation

/// App Store messages waiting for the app, in arrival order, for this app session only.
/// Shown one at a time; a message leaves the list only once it was displayed.
actor StoreMessageQueue {
  private var pending: [AdaptyStoreMessage] = []
  private var showing = false
  private var streams: [UUID: AsyncStream<Set<AdaptyStoreMessageType>>.Continuation] = [:]

  /// Adds a captured message unless the same one is pending already.
  func add(_ message: AdaptyStoreMessage) {
    guard !pending.contains(where: { $0.id == message.id }) else { return }
    pending.append(message)
    Log.info("store message captured: \(message.type)")
    broadcast()
  }

  /// The types waiting; nothing is shown or removed.
  var pendingTypes: Set<AdaptyStoreMessageType> { Set(pending.map(\.type)) }

  /// Shows the pending messages of `types` (all when nil) one after another, each only after
  /// the previous display returned. A failed display is logged and its message stays for
  /// the next call; the others are still shown. Throws 3201 when a show is running.
  func show(
    types: Set<AdaptyStoreMessageType>?, display: @Sendable (AdaptyStoreMessage) async throws -> Void
  ) async throws(AdaptyError) {
    guard !showing else {
      throw AdaptyError(.storeMessagesShowInProgress, "showStoreMessages is already running; await it first.")
    }
    showing = true
    defer { showing = false }
    let selected = pending.filter { types?.contains($0.type) ?? true }
    for message in selected {
      do {
        try await display(message)
        pending.removeAll { $0.id == message.id }
        broadcast()
      } catch {
        Log.error("store message \(message.type) could not be shown (kept for the next call): \(error)")
      }
    }
  }

  /// A stream of the pending types: now, then after each change.
  func subscribe(_ continuation: AsyncStream<Set<AdaptyStoreMessageType>>.Continuation) {
    let id = UUID()
    streams[id] = continuation
    continuation.yield(pendingTypes)
    continuation.onTermination = { [weak self] _ in Task { await self?.unsubscribe(id) } }
  }

  private func unsubscribe(_ id: UUID) { streams[id] = nil }

  private func broadcast() {
    let types = pendingTypes
    for continuation in streams.values { continuation.yield(types) }
  }

  func finish() {
    for continuation in streams.values { continuation.finish() }
    streams = [:]
  }
}
