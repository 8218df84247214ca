import Foundation
import Synchronization
import Testing
import TollgateAPI

@testable import Adapty

@Suite("logShowFlow events", .timeLimit(.minutes(5)))
struct EventQueueTests {
  func flow(_ variation: String = "onboarding:default:standard") -> AdaptyFlow {
    AdaptyFlow(
      placement: AdaptyPlacement(id: "onboarding", revision: 1, audienceName: "All Users", abTestName: nil),
      id: "standard", name: "Standard", variationId: variation, remoteConfig: nil, vendorProductIds: [],
      source: .segmented)
  }

  func sentEvents(_ transport: FakeTransport) -> [EventPayload] {
    transport.requests(to: "/v1/sdk/events").flatMap {
      (try? WireCoding.decoder.decode(EventBatchRequest.self, from: $0.body ?? Data()).events) ?? []
    }
  }

  @Test("an event is on disk before logShowFlow returns, and leaves it once the server has it")
  func persistedThenSent() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    harness.transport.hold()
    let runtime = await harness.launch()
    await runtime.logShow(flow())
    let onDisk = try WireCoding.decoder.decode(
      [EventPayload].self, from: Data(contentsOf: harness.file(StoredFile.events)))
    #expect(onDisk.count == 1)
    #expect(onDisk[0].variationId == "onboarding:default:standard")
    #expect(onDisk[0].profileId == (await runtime.profiles.profileId))
    harness.transport.release()
    await runtime.events.drained()
    #expect(await runtime.events.count == 0)
    #expect(
      try WireCoding.decoder.decode([EventPayload].self, from: Data(contentsOf: harness.file(StoredFile.events)))
        .isEmpty)
    #expect(sentEvents(harness.transport).map(\.eventId) == onDisk.map(\.eventId))
    await runtime.shutdown()
  }

  @Test("a dead network is retried with back-off; nothing is lost or sent twice")
  func retries() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond { _ in throw TransportError(description: "offline") }
    let runtime = await harness.launch()
    await runtime.logShow(flow())
    await runtime.logShow(flow())
    await harness.clock.sleepers(atLeast: 1)
    #expect(harness.clock.sleptDurations.filter { [2, 4, 8].contains($0) } == [2])
    harness.clock.advance(by: 2)
    await harness.clock.sleepers(atLeast: 1)
    #expect(harness.clock.sleptDurations.contains(4))
    let attempts = harness.transport.requests(to: "/v1/sdk/events").count
    harness.transport.respond(server.respond)
    harness.clock.advance(by: 4)
    await runtime.events.drained()
    #expect(await runtime.events.count == 0)
    let delivered = harness.transport.requests(to: "/v1/sdk/events").dropFirst(attempts).flatMap {
      (try? WireCoding.decoder.decode(EventBatchRequest.self, from: $0.body ?? Data()).events) ?? []
    }
    #expect(delivered.count == 2)
    #expect(Set(delivered.compactMap(\.eventId)).count == 2)
    await runtime.shutdown()
  }

  @Test("events pending at exit are sent on the next launch")
  func acrossLaunches() async throws {
    let harness = Harness()
    harness.transport.respond { _ in throw TransportError(description: "offline") }
    let first = await harness.launch()
    await first.logShow(flow())
    await first.shutdown()

    let attempts = sentEvents(harness.transport).count
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let second = await harness.launch()
    await second.events.drained()
    #expect(await second.events.count == 0)
    #expect(sentEvents(harness.transport).count == attempts + 1)
    await second.shutdown()
  }

  @Test("events the server rejects (422) are dropped one by one; the rest of the batch is sent")
  func rejected() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    let recorded = Mutex<[EventPayload]>([])
    harness.transport.hold()
    harness.transport.respond { request in
      guard request.path == "/v1/sdk/events" else { return try server.respond(request) }
      let batch = try WireCoding.decoder.decode(EventBatchRequest.self, from: request.body ?? Data())
      if let bad = batch.events.firstIndex(where: { $0.variationId == "gone" }) {
        return Wire.json(
          APIErrorBody(
            error: APIError(
              code: "validation_failed", message: "x",
              details: [.init(path: "$.events[\(bad)].variation_id", message: "gone")])),
          status: 422)
      }
      recorded.withLock { $0 += batch.events }
      return Wire.json(EventBatchResponse(accepted: batch.events.count, duplicates: 0))
    }
    let runtime = await harness.launch()
    await runtime.logShow(flow())
    await runtime.logShow(flow("gone"))
    await runtime.logShow(flow())
    harness.transport.release()
    await runtime.events.drained()
    #expect(await runtime.events.count == 0)
    let accepted = recorded.withLock { $0 }
    #expect(accepted.count == 2)
    #expect(accepted.allSatisfy { $0.variationId == "onboarding:default:standard" })
    await runtime.shutdown()
  }
}

@Suite("Logging")
struct LoggingTests {
  @Test("records below the level are dropped; the handler receives the rest")
  func levels() {
    let logger = SDKLogger()
    let capture = LogCapture()
    logger.setHandler { record in capture.lines.withLock { $0.append("\(record.level) \(record.message)") } }
    logger.level = .warn
    logger.log(.info, "hidden")
    logger.log(.warn, "shown")
    logger.log(.error, "also shown")
    #expect(capture.lines.withLock { $0 } == ["warn shown", "error also shown"])
    #expect(AdaptyLog.Level.debug > AdaptyLog.Level.verbose)
  }
}
