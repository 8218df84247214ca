import Foundation
import Synchronization
import Testing
import TollgateAPI

@testable import Adapty

@Suite("Apple Ads attribution in the SDK", .timeLimit(.minutes(5)))
struct AttributionCollectorTests {
  /// The scripted server plus the attribution route: answers with `status` (200 applied,
  /// 202 pending) and applies on the long poll.
  func attributionServer(_ server: Scripted.Server, status: Int = 200) -> FakeTransport.Responder {
    { request in
      if request.path.hasSuffix("/attribution/apple-ads") {
        let id = request.path.split(separator: "/")[3]
        if status == 200 {
          server.bump(String(id), sources: ["apple_ads"])
          var payload = Wire.profile(String(id), version: 2, sources: ["apple_ads"])
          payload.attributionStatus = ["apple_ads": .applied]
          return Wire.json(payload)
        }
        if status == 202 {
          var payload = Wire.profile(String(id), version: 1)
          payload.attributionStatus = ["apple_ads": .pending]
          return Wire.json(AttributionPendingResponse(profile: payload), status: 202)
        }
        return Wire.error(status, "scripted")
      }
      if request.query["wait_for"] == "apple_ads" {
        let id = String(request.path.split(separator: "/")[3])
        var payload = Wire.profile(id, version: 2, sources: ["apple_ads"])
        payload.attributionStatus = ["apple_ads": .applied]
        return Wire.json(payload)
      }
      return try server.respond(request)
    }
  }

  func state(_ harness: Harness) throws -> AttributionState {
    try WireCoding.decoder.decode(AttributionState.self, from: Data(contentsOf: harness.file(StoredFile.attribution)))
  }

  @Test("after activation the token is sent in the background and the applied profile delivered")
  func sendsToken() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(attributionServer(server))
    let delegate = RecordingDelegate()
    harness.delegates.delegate = delegate
    let token = ScriptedToken([.success("token-1")])
    let runtime = await harness.launch(token: token)
    await runtime.attribution?.run()
    #expect(delegate.profiles.last?.appliedExternalAttributionProviders == [.appleAds])
    let sent = try #require(harness.transport.requests.first { $0.path.hasSuffix("/attribution/apple-ads") })
    #expect(try WireCoding.decoder.decode(AppleAdsTokenRequest.self, from: sent.body!).token == "token-1")
    #expect(try state(harness).acknowledgedProfileId == (await runtime.profiles.profileId))
    await runtime.shutdown()
  }

  @Test("transient token failures are retried after 0, 2 and 6 s on the clock")
  func transientRetries() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(attributionServer(server))
    let token = ScriptedToken([
      .failure(.temporarilyUnavailable("network")), .failure(.temporarilyUnavailable("network")), .success("t"),
    ])
    let runtime = await harness.launch(token: token)
    let run = Task { await runtime.attribution?.run() }
    await harness.clock.sleepers(atLeast: 1)
    #expect(harness.clock.sleptDurations == [2])
    harness.clock.advance(by: 2)
    await harness.clock.sleepers(atLeast: 1)
    #expect(harness.clock.sleptDurations == [2, 6])
    harness.clock.advance(by: 6)
    await run.value
    #expect(token.calls == 3)
    #expect(await runtime.profiles.cachedProfile?.appliedExternalAttributionProviders == [.appleAds])
    await runtime.shutdown()
  }

  @Test("a permanent failure stops collection, and later launches do not try again")
  func permanentFailure() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(attributionServer(server))
    let token = ScriptedToken([.failure(.unavailable("simulator"))])
    let first = await harness.launch(token: token)
    await first.attribution?.run()
    await first.shutdown()
    #expect(try state(harness).stopped == "no token: simulator")
    let second = await harness.launch(token: token)
    await second.attribution?.run()
    #expect(token.calls == 1)
    await second.shutdown()
  }

  @Test("202 pending: the SDK long-polls and delivers the profile once applied")
  func pendingThenApplied() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(attributionServer(server, status: 202))
    let runtime = await harness.launch(token: ScriptedToken([.success("t")]))
    await runtime.attribution?.run()
    let poll = try #require(harness.transport.requests.last { $0.query["wait_for"] == "apple_ads" })
    #expect(poll.query["timeout_ms"] == "25000")
    #expect(await runtime.profiles.cachedProfile?.appliedExternalAttributionProviders == [.appleAds])
    await runtime.shutdown()
  }

  @Test("a server that fails is retried in the session and on the next launch within 24 h, not after")
  func serverFailures() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(attributionServer(server, status: 503))
    let token = ScriptedToken(Array(repeating: .success("t"), count: 20))
    let first = await harness.launch(token: token)
    let run = Task { await first.attribution?.run() }
    for wait in [2.0, 6, 15] {
      await harness.clock.sleepers(atLeast: 1)
      harness.clock.advance(by: wait)
    }
    await run.value
    #expect(token.calls == 4)
    #expect(try state(harness).acknowledgedProfileId == nil)
    await first.shutdown()

    harness.transport.respond(attributionServer(server))
    harness.clock.advance(by: 3_600)
    let second = await harness.launch(token: token)
    await second.attribution?.run()
    #expect(await second.profiles.cachedProfile?.appliedExternalAttributionProviders == [.appleAds])
    await second.shutdown()

    // A third install whose first attempt was more than 24 h ago gives up.
    let late = Harness(clock: ManualClock())
    late.transport.respond(attributionServer(Scripted.Server(), status: 503))
    let lateToken = ScriptedToken(Array(repeating: .success("t"), count: 20))
    let one = await late.launch(token: lateToken)
    let lateRun = Task { await one.attribution?.run() }
    for wait in [2.0, 6, 15] {
      await late.clock.sleepers(atLeast: 1)
      late.clock.advance(by: wait)
    }
    await lateRun.value
    await one.shutdown()
    late.clock.advance(by: 25 * 3_600)
    let two = await late.launch(token: lateToken)
    await two.attribution?.run()
    #expect(lateToken.calls == 4)
    await two.shutdown()
  }

  @Test("getFlow awaiting attribution makes one segmented request (held by the server) and at most one default request")
  func oneRequest() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    let runtime = await harness.launch()
    let flow = try await runtime.placements.flowAwaitingAttribution(
      placementId: "onboarding", locale: nil, provider: .appleAds, timeout: 3)
    #expect(flow.source == .segmented)
    let segmented = harness.transport.requests(to: "/v1/sdk/placements/onboarding/flow")
    #expect(segmented.count == 1)
    #expect(segmented.first?.query["wait_for"] == "apple_ads")
    #expect(segmented.first?.query["timeout_ms"] == "3000")
    #expect(harness.transport.requests(to: "/v1/sdk/placements/onboarding/default").count <= 1)
    await runtime.shutdown()
  }

  @Test("getFlow awaiting attribution: a late server yields the prefetched default-audience flow")
  func lateServerGivesDefault() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond { request in
      if request.path.hasSuffix("/flow") { throw TransportError(description: "reset") }
      return try server.respond(request)
    }
    let runtime = await harness.launch()
    let flow = try await runtime.placements.flowAwaitingAttribution(
      placementId: "onboarding", locale: nil, provider: .appleAds, timeout: 3)
    #expect(flow.source == .defaultAudience)
    #expect(flow.id == "default_flow")
    await runtime.shutdown()
  }

  @Test("with .appleAds already on the cached profile, no wait is asked of the server")
  func alreadyApplied() async throws {
    let harness = Harness()
    let server = Scripted.Server()
    harness.transport.respond(attributionServer(server))
    let first = await harness.launch(token: ScriptedToken([.success("t")]))
    await first.attribution?.run()
    await first.shutdown()
    let second = await harness.launch(token: ScriptedToken([]))
    _ = try await second.placements.flowAwaitingAttribution(
      placementId: "onboarding", locale: nil, provider: .appleAds, timeout: 3)
    let last = try #require(harness.transport.requests(to: "/v1/sdk/placements/onboarding/flow").last)
    #expect(last.query["wait_for"] == nil)
    await second.shutdown()
  }
}
