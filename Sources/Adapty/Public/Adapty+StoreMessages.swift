extension Adapty {
  /// The types of App Store messages waiting (`.manual` handling); nothing is shown or
  /// removed. Empty with `.auto` handling or before activation.
  @available(iOS 16.0, macCatalyst 16.0, *)
  @available(macOS, unavailable)
  public nonisolated static func getPendingStoreMessageTypes() async -> Set<AdaptyStoreMessageType> {
    guard let runtime = try? await Facade.shared.runtime(), let queue = runtime.storeMessages else { return [] }
    return await queue.pendingTypes
  }

  /// Shows pending App Store messages through `display`, one after another, in arrival
  /// order; only those of `types` when given. This is what the StoreKit overloads
  /// (`using:`/`in:`) call; it works on every platform. A display that throws is logged and
  /// its message kept for the next call. Throws 3201 if a show is running, 2002 before
  /// activation. Call it where a system sheet will not interrupt the user — for example
  /// after a flow (paywall) is dismissed: the SDK never puts a message over your screens.
  @available(iOS 16.0, macCatalyst 16.0, *)
  @available(macOS, unavailable)
  public nonisolated static func showStoreMessages(
    for types: Set<AdaptyStoreMessageType>? = nil,
    display: @escaping @Sendable (AdaptyStoreMessage) async throws -> Void
  ) async throws(AdaptyError) {
    let runtime = try await Facade.shared.runtime()
    guard let queue = runtime.storeMessages else { return }
    try await queue.show(types: types, display: display)
  }

  /// The pending types now, then after every change (`.manual` handling): badge a screen or
  /// hold an upsell without polling.
  @available(iOS 16.0, macCatalyst 16.0, *)
  @available(macOS, unavailable)
  public nonisolated static var storeMessageUpdates: AsyncStream<Set<AdaptyStoreMessageType>> {
    Facade.shared.storeMessageStream()
  }
}
