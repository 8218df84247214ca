import Foundation
import Synchronization
import Testing

@testable import Adapty

/// Feeds App Store messages by hand.
final class HandFedMessages: AdaptyStoreMessageSource {
  private let deliver = Mutex<(@Sendable (AdaptyStoreMessage) -> Void)?>(nil)
  func start(_ deliver: @escaping @Sendable (AdaptyStoreMessage) -> Void) { self.deliver.withLock { $0 = deliver } }
  func send(_ type: AdaptyStoreMessageType) {
    deliver.withLock { $0 }?(AdaptyStoreMessage(type: type, id: type.rawValue))
  }
}

extension EndToEndTests {
  @Test("store messages through the static API: 2002 before activation, then the documented flow")
  func storeMessages() async throws {
    do {
      try await Adapty.showStoreMessages { _ in }
      Issue.record("expected notActivated")
    } catch {
      #expect(error.errorCode == 2002)
    }
    #expect(await Adapty.getPendingStoreMessageTypes().isEmpty)

    let live = try LiveServer()
    defer { live.stop() }
    let source = HandFedMessages()
    let configuration = AdaptyConfiguration.builder(withAPIKey: live.keys.publicKey)
      .with(backendBaseUrl: live.baseURL).with(storageDirectory: live.sdkDirectory)
      .with(storeMessagesHandling: .manual).with(storeMessageSource: source)
      .with(attributionTokenProvider: nil).build()
    try await Adapty.activate(with: configuration)
    var updates = Adapty.storeMessageUpdates.makeAsyncIterator()
    #expect(await updates.next() == [])
    source.send(.billingIssue)
    #expect(await updates.next() == [.billingIssue])
    let pendingTypes = await Adapty.getPendingStoreMessageTypes()
    #expect(pendingTypes.contains(.billingIssue))
    let shown = Mutex<[AdaptyStoreMessageType]>([])
    try await Adapty.showStoreMessages(for: [.billingIssue]) { message in shown.withLock { $0.append(message.type) } }
    #expect(shown.withLock { $0 } == [.billingIssue])
    #expect(await Adapty.getPendingStoreMessageTypes().isEmpty)
    await quitApp()
  }
}
