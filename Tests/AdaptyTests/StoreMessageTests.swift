import Foundation
import Synchronization
import Testing

@testable import Adapty

/// A message source the test feeds by hand.
final class FakeMessageSource: AdaptyStoreMessageSource {
  private let deliver = Mutex<(@Sendable (AdaptyStoreMessage) -> Void)?>(nil)
  private let started = Mutex(0)

  var startCount: Int { started.withLock { $0 } }

  func start(_ deliver: @escaping @Sendable (AdaptyStoreMessage) -> Void) {
    started.withLock { $0 += 1 }
    self.deliver.withLock { $0 = deliver }
  }

  func send(_ type: AdaptyStoreMessageType, id: String? = nil) {
    deliver.withLock { $0 }?(AdaptyStoreMessage(type: type, id: id ?? UUID().uuidString))
  }
}

/// Records display calls; can be told to fail some messages or to hold until released.
final class FakeDisplay: Sendable {
  struct Failure: Error {}
  private let shown = Mutex<[String]>([])
  private let failing = Mutex<Set<String>>([])
  private let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
  private let holding = Mutex(false)
  let entered = Condition()
  private let enteredCount = Mutex(0)

  var displayed: [String] { shown.withLock { $0 } }
  func fail(_ id: String) { failing.withLock { _ = $0.insert(id) } }
  func succeed(_ id: String) { failing.withLock { _ = $0.remove(id) } }
  func hold() { holding.withLock { $0 = true } }
  func release() {
    holding.withLock { $0 = false }
    gate.withLock { $0 }?.resume()
  }
  var entries: Int { enteredCount.withLock { $0 } }

  @Sendable func callAsFunction(_ message: AdaptyStoreMessage) async throws {
    enteredCount.withLock { $0 += 1 }
    entered.changed()
    if holding.withLock({ $0 }) {
      await withCheckedContinuation { continuation in gate.withLock { $0 = continuation } }
    }
    if failing.withLock({ $0.contains(message.id) }) { throw Failure() }
    shown.withLock { $0.append(message.id) }
  }
}

@Suite("App Store messages", .timeLimit(.minutes(5)))
struct StoreMessageTests {
  func launch(_ harness: Harness, handling: AdaptyStoreMessagesHandling = .manual) async -> (
    AdaptyRuntime, FakeMessageSource
  ) {
    let source = FakeMessageSource()
    let builder = AdaptyConfiguration.builder(withAPIKey: "k").with(storageDirectory: harness.directory)
      .with(storeMessagesHandling: handling).with(storeMessageSource: source).with(attributionTokenProvider: nil)
    builder.dependencies.transport = harness.transport
    builder.dependencies.clock = harness.clock
    let runtime = await AdaptyRuntime.launch(builder.build(), fallback: harness.fallback, delegates: harness.delegates)
    return (runtime, source)
  }

  func settle(_ queue: StoreMessageQueue, count: Int) async -> Bool {
    await eventually { await queue.pendingTypes.count >= count }
  }

  @Test("messages are shown one after another in arrival order and leave the list once shown")
  func orderAndRemoval() async throws {
    let (runtime, source) = await launch(Harness())
    let queue = try #require(runtime.storeMessages)
    #expect(source.startCount == 1)  // started during activation
    source.send(.priceIncreaseConsent, id: "1")
    _ = await settle(queue, count: 1)
    source.send(.billingIssue, id: "2")
    _ = await settle(queue, count: 2)
    source.send(.generic, id: "3")
    _ = await settle(queue, count: 3)
    #expect(await queue.pendingTypes == [.priceIncreaseConsent, .billingIssue, .generic])
    let display = FakeDisplay()
    try await queue.show(types: nil, display: display.callAsFunction)
    #expect(display.displayed == ["1", "2", "3"])
    #expect(await queue.pendingTypes.isEmpty)
    await runtime.shutdown()
  }

  @Test("a failed display is logged, the message stays, and the others are still shown")
  func failureKeepsMessage() async throws {
    let (runtime, source) = await launch(Harness())
    let queue = try #require(runtime.storeMessages)
    source.send(.billingIssue, id: "bill")
    source.send(.winBackOffer, id: "win")
    _ = await settle(queue, count: 2)
    let display = FakeDisplay()
    display.fail("bill")
    try await queue.show(types: nil, display: display.callAsFunction)
    #expect(display.displayed == ["win"])
    #expect(await queue.pendingTypes == [.billingIssue])
    display.succeed("bill")
    try await queue.show(types: nil, display: display.callAsFunction)
    #expect(display.displayed == ["win", "bill"])
    #expect(await queue.pendingTypes.isEmpty)
    await runtime.shutdown()
  }

  @Test("for: shows only those types; the others stay pending, unknown types included")
  func filters() async throws {
    let (runtime, source) = await launch(Harness())
    let queue = try #require(runtime.storeMessages)
    source.send(.billingIssue, id: "a")
    source.send(.unknownStoreKitReason(7), id: "b")
    source.send(.priceIncreaseConsent, id: "c")
    _ = await settle(queue, count: 3)
    let display = FakeDisplay()
    try await queue.show(types: [.billingIssue, .priceIncreaseConsent], display: display.callAsFunction)
    #expect(display.displayed == ["a", "c"])
    #expect(await queue.pendingTypes == [AdaptyStoreMessageType(rawValue: "storekit_7")])
    try await queue.show(types: nil, display: display.callAsFunction)
    #expect(display.displayed == ["a", "c", "b"])
    await runtime.shutdown()
  }

  @Test("raw values are the documented wire values")
  func rawValues() {
    #expect(AdaptyStoreMessageType.generic.rawValue == "generic")
    #expect(AdaptyStoreMessageType.priceIncreaseConsent.rawValue == "price_increase_consent")
    #expect(AdaptyStoreMessageType.billingIssue.rawValue == "billing_issue")
    #expect(AdaptyStoreMessageType.winBackOffer.rawValue == "win_back_offer")
    #expect(AdaptyStoreMessageType.unknownStoreKitReason(42).rawValue == "storekit_42")
  }

  @Test("the same message delivered twice is pending once")
  func duplicates() async throws {
    let (runtime, source) = await launch(Harness())
    let queue = try #require(runtime.storeMessages)
    source.send(.billingIssue, id: "same")
    source.send(.billingIssue, id: "same")
    source.send(.generic, id: "other")
    _ = await settle(queue, count: 2)
    let display = FakeDisplay()
    try await queue.show(types: nil, display: display.callAsFunction)
    #expect(display.displayed == ["same", "other"])
    await runtime.shutdown()
  }

  @Test("a second show while one runs throws 3201; the next message waits for the previous display")
  func concurrency() async throws {
    let (runtime, source) = await launch(Harness())
    let queue = try #require(runtime.storeMessages)
    source.send(.billingIssue, id: "1")
    source.send(.generic, id: "2")
    _ = await settle(queue, count: 2)
    let display = FakeDisplay()
    display.hold()
    let first = Task { try await queue.show(types: nil, display: display.callAsFunction) }
    await display.entered.wait { display.entries == 1 }
    do {
      try await queue.show(types: nil, display: display.callAsFunction)
      Issue.record("a second show ran")
    } catch {
      #expect(error.errorCode == 3201)
    }
    #expect(display.entries == 1)  // the second message has not started
    display.release()
    try await first.value
    #expect(display.displayed == ["1", "2"])
    await runtime.shutdown()
  }

  @Test(".auto captures nothing and never starts the source")
  func autoHandling() async throws {
    let (runtime, source) = await launch(Harness(), handling: .auto)
    #expect(runtime.storeMessages == nil)
    #expect(source.startCount == 0)
    await runtime.shutdown()
  }

  @Test("before activation: no pending types, and showStoreMessages throws notActivated")
  func notActivated() async throws {
    let facade = Facade()
    do {
      _ = try await facade.runtime()
      Issue.record("expected notActivated")
    } catch {
      #expect(error.errorCode == 2002)
    }
  }

  @Test("storeMessageUpdates yields the pending types now, then each change")
  func updates() async throws {
    let harness = Harness()
    let source = FakeMessageSource()
    let facade = harness.facade()
    let stream = facade.storeMessageStream()
    let builder = AdaptyConfiguration.builder(withAPIKey: "k").with(storageDirectory: harness.directory)
      .with(storeMessagesHandling: .manual).with(storeMessageSource: source).with(attributionTokenProvider: nil)
    builder.dependencies.transport = harness.transport
    builder.dependencies.clock = harness.clock
    try await facade.activate(builder.build())
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == [])
    source.send(.billingIssue, id: "b")
    #expect(await iterator.next() == [.billingIssue])
    let runtime = try await facade.runtime()
    try await runtime.storeMessages!.show(types: nil, display: FakeDisplay().callAsFunction)
    #expect(await iterator.next() == [])
    await facade.reset()
  }
}
