import Foundation
import Testing
import TollgateAPI

@testable import Adapty

@Suite("Flows: fetch policies, timeouts, cache and fallback", .timeLimit(.minutes(5)))
struct FlowTests {
  func launch(_ harness: Harness) async -> (AdaptyRuntime, Scripted.Server) {
    let server = Scripted.Server()
    harness.transport.respond(server.respond)
    return (await harness.launch(), server)
  }

  @Test("reloadRevalidatingCacheData asks the server every time and caches the answer")
  func reload() async throws {
    let harness = Harness()
    let (runtime, _) = await launch(harness)
    let first = try await runtime.placements.flow(
      placementId: "onboarding", locale: "en", fetchPolicy: .default, loadTimeout: nil)
    #expect(first.source == .segmented)
    #expect(first.id == "segmented_flow")
    #expect(first.placement.audienceName == "Everyone")
    #expect(first.remoteConfig?.dictionary?["title"] as? String == "segmented_flow")
    #expect(first.vendorProductIds == ["p1"])
    _ = try await runtime.placements.flow(
      placementId: "onboarding", locale: "en", fetchPolicy: .default, loadTimeout: nil)
    #expect(harness.transport.requests(to: "/v1/sdk/placements/onboarding/flow").count == 2)
    await runtime.shutdown()
  }

  @Test("returnCacheDataElseLoad answers from the cache without a request")
  func cacheElseLoad() async throws {
    let harness = Harness()
    let (runtime, _) = await launch(harness)
    _ = try await runtime.placements.flow(
      placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: nil)
    let cached = try await runtime.placements.flow(
      placementId: "onboarding", locale: nil, fetchPolicy: .returnCacheDataElseLoad, loadTimeout: nil)
    #expect(cached.source == .cache)
    #expect(cached.id == "segmented_flow")
    #expect(harness.transport.requests(to: "/v1/sdk/placements/onboarding/flow").count == 1)
    let other = try await runtime.placements.flow(
      placementId: "paywall", locale: nil, fetchPolicy: .returnCacheDataElseLoad, loadTimeout: nil)
    #expect(other.source == .segmented)
    await runtime.shutdown()
  }

  @Test("returnCacheDataIfNotExpiredElseLoad honours maxAge on the injected clock")
  func notExpired() async throws {
    let harness = Harness()
    let (runtime, _) = await launch(harness)
    _ = try await runtime.placements.flow(
      placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: nil)
    let policy = AdaptyPlacementFetchPolicy.returnCacheDataIfNotExpiredElseLoad(maxAge: 60)
    harness.clock.advance(by: 59)
    #expect(
      try await runtime.placements.flow(placementId: "onboarding", locale: nil, fetchPolicy: policy, loadTimeout: nil)
        .source == .cache)
    harness.clock.advance(by: 2)
    #expect(
      try await runtime.placements.flow(placementId: "onboarding", locale: nil, fetchPolicy: policy, loadTimeout: nil)
        .source == .segmented)
    await runtime.shutdown()
  }

  @Test("a server error falls back to the cache, then the fallback file, then throws")
  func serverErrorPrecedence() async throws {
    let harness = Harness()
    let (runtime, server) = await launch(harness)
    _ = try await runtime.profiles.ensureCreated()
    harness.transport.respond { request in
      request.path.hasSuffix("/flow") ? Wire.error(503, "unavailable") : try server.respond(request)
    }
    do {
      _ = try await runtime.placements.flow(
        placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: nil)
      Issue.record("expected serverError")
    } catch {
      #expect(error.adaptyErrorCode == .serverError)
    }
    try harness.loadFallback()
    let fromFallback = try await runtime.placements.flow(
      placementId: "onboarding", locale: "fr-CA", fetchPolicy: .default, loadTimeout: nil)
    #expect(fromFallback.source == .fallback)
    #expect(fromFallback.id == "fallback_flow")
    #expect(fromFallback.remoteConfig?.locale == "fr")
    #expect(fromFallback.placement.revision == 7)

    harness.transport.respond(server.respond)
    _ = try await runtime.placements.flow(
      placementId: "onboarding", locale: "fr-CA", fetchPolicy: .default, loadTimeout: nil)
    harness.transport.respond { _ in throw TransportError(description: "offline") }
    let fromCache = try await runtime.placements.flow(
      placementId: "onboarding", locale: "fr-CA", fetchPolicy: .default, loadTimeout: nil)
    #expect(fromCache.source == .cache)
    #expect(fromCache.id == "segmented_flow")
    await runtime.shutdown()
  }

  @Test("after loadTimeout: cache, else fallback, else fetchTimeoutError (3101); the late answer still fills the cache")
  func timeouts() async throws {
    let harness = Harness()
    let (runtime, _) = await launch(harness)
    _ = try await runtime.profiles.ensureCreated()
    harness.transport.hold()

    let nothing = Task {
      try await runtime.placements.flow(placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: 3)
    }
    await harness.clock.sleepers(atLeast: 1)
    harness.clock.advance(by: 3)
    do {
      _ = try await nothing.value
      Issue.record("expected a timeout")
    } catch {
      #expect((error as? AdaptyError)?.adaptyErrorCode == .fetchTimeoutError)
    }

    try harness.loadFallback()
    let fallback = Task {
      try await runtime.placements.flow(placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: nil)
    }
    await harness.clock.sleepers(atLeast: 1)
    #expect(harness.clock.sleptDurations.last == 5)
    harness.clock.advance(by: 5)
    #expect(try await fallback.value.source == .fallback)

    // The held requests complete later and fill the cache for the next call.
    harness.transport.release()
    #expect(
      await eventually {
        await runtime.placements.cache.entry(.segmented, placementId: "onboarding", locale: nil) != nil
      })
    harness.transport.hold()
    let cached = Task {
      try await runtime.placements.flow(placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: 0.1)
    }
    await harness.clock.sleepers(atLeast: 1)
    #expect(harness.clock.sleptDurations.last == 1)  // loadTimeout is at least 1 s
    harness.clock.advance(by: 1)
    #expect(try await cached.value.source == .cache)
    harness.transport.release()
    await runtime.shutdown()
  }

  @Test("default audience: ETag revalidation, 304 keeps the cached bytes")
  func defaultAudience() async throws {
    let harness = Harness()
    let (runtime, _) = await launch(harness)
    let first = try await runtime.placements.defaultFlow(
      placementId: "onboarding", locale: "en", fetchPolicy: .default, loadTimeout: nil)
    #expect(first.source == .defaultAudience)
    #expect(first.id == "default_flow")
    let second = try await runtime.placements.defaultFlow(
      placementId: "onboarding", locale: "en", fetchPolicy: .default, loadTimeout: nil)
    #expect(second == first)
    let requests = harness.transport.requests(to: "/v1/sdk/placements/onboarding/default")
    #expect(requests.count == 2)
    #expect(requests[1].headers["If-None-Match"] == "\"d-onboarding\"")
    // No profile is needed for the default audience.
    #expect(harness.transport.requests(to: "/v1/sdk/placements/onboarding/flow").isEmpty)
    await runtime.shutdown()
  }

  @Test("a profile the server lost is created again and the flow request retried once")
  func recreatesLostProfile() async throws {
    let harness = Harness()
    let (runtime, server) = await launch(harness)
    let id = try await runtime.profiles.ensureCreated()
    server.versions.withLock { $0 = [:] }
    harness.transport.respond { request in
      if request.path.hasSuffix("/flow"), server.versions.withLock({ $0[id] }) == nil {
        return Wire.error(404, "profile_not_found")
      }
      return try server.respond(request)
    }
    let flow = try await runtime.placements.flow(
      placementId: "onboarding", locale: nil, fetchPolicy: .default, loadTimeout: nil)
    #expect(flow.source == .segmented)
    #expect(harness.transport.requests(to: "/v1/sdk/profiles").count == 2)
    await runtime.shutdown()
  }
}

@Suite("Errors and the fallback file")
struct ErrorAndFallbackTests {
  @Test(
    "HTTP answers map to the documented codes",
    arguments: [
      (401, 2002), (403, 2002), (400, 2003), (404, 2003), (422, 2003), (429, 2004), (500, 2004), (503, 2004),
    ])
  func httpMapping(status: Int, code: Int) {
    let failure = BackendClient.failure(for: Wire.error(status, "x"))
    #expect(failure.error.errorCode == code)
    #expect(failure.serverCode == "x")
  }

  @Test("a dead network is networkFailed (2005), an undecodable answer decodingFailed (2006)")
  func transportAndDecoding() async throws {
    let transport = FakeTransport { _ in throw TransportError(description: "offline") }
    let client = BackendClient(transport: transport, apiKey: "k")
    do {
      _ = try await client.sendEvents(EventBatchRequest(events: []))
      Issue.record("expected a failure")
    } catch {
      #expect(error.error.adaptyErrorCode == .networkFailed)
    }
    transport.respond { _ in HTTPResponse(status: 200, body: Data("<html>".utf8)) }
    do {
      _ = try await client.sendEvents(EventBatchRequest(events: []))
      Issue.record("expected a failure")
    } catch {
      #expect(error.error.adaptyErrorCode == .decodingFailed)
    }
    let request = try #require(transport.requests.last)
    #expect(request.headers["Authorization"] == "Api-Key k")
    #expect(request.headers["Content-Type"] == "application/json")
  }

  @Test("a malformed fallback file is decodingFailed and the previous one stays")
  func malformedFallback() throws {
    let harness = Harness()
    try harness.loadFallback(["onboarding": "kept"])
    let bad = harness.directory.appendingPathComponent("bad.json")
    for content in [
      "not json", #"{"format_version":1}"#, #"{"format_version":0,"revision":1,"generated_at":"","placements":[]}"#,
    ] {
      try Data(content.utf8).write(to: bad)
      #expect(throws: AdaptyError.self) { try harness.fallback.load(from: bad) }
    }
    #expect(throws: AdaptyError.self) {
      try harness.fallback.load(from: harness.directory.appendingPathComponent("missing.json"))
    }
    #expect(harness.fallback.flow(placementId: "onboarding", locale: nil)?.id == "kept")
  }

  @Test("a fallback file of a newer format with unknown fields is read")
  func newerFallback() throws {
    let harness = Harness()
    try FileManager.default.createDirectory(at: harness.directory, withIntermediateDirectories: true)
    let url = harness.directory.appendingPathComponent("newer.json")
    try Data(
      #"""
      {"format_version":3,"revision":12,"generated_at":"2030-01-01T00:00:00Z","signature":"abc",
       "placements":[{"id":"onboarding","audience_name":"All Users","future":{"x":1},
         "flow":{"id":"f","name":"F","variation_id":"onboarding:default:f","products":["a","b"],
                 "remote_configs":{"de":{"t":1}},"layout":"v3"}}]}
      """#.utf8
    ).write(to: url)
    try harness.fallback.load(from: url)
    let flow = try #require(harness.fallback.flow(placementId: "onboarding", locale: "en"))
    #expect(flow.vendorProductIds == ["a", "b"])
    #expect(flow.remoteConfig?.locale == "de")
    #expect(flow.placement.revision == 12)
    #expect(harness.fallback.flow(placementId: "other", locale: nil) == nil)
  }
}
