import Foundation
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("Apple Ads attribution", .timeLimit(.minutes(5)))
struct AttributionTests {
  func post(_ server: TestServer, _ profile: String, token: String) async throws -> HTTPResult {
    try await server.sdk(
      "POST", RoutePaths.appleAdsAttribution(profile),
      json: String(decoding: WireCoding.encode(AppleAdsTokenRequest(token: token)), as: UTF8.self))
  }

  func profile(_ server: TestServer, _ id: String) async throws -> ProfilePayload {
    try await server.sdk("GET", RoutePaths.profile(id)).decode(ProfilePayload.self)
  }

  @Test("a token resolved within the budget answers 200 with the source applied; the same token twice calls Apple once")
  func appliedAtOnce() async throws {
    let server = try TestServer(attributionBudget: 5, mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    let token = "sbx|campaign=542370539"
    let first = try await post(server, id, token: token)
    #expect(first.status == 200)
    let applied = try first.decode(ProfilePayload.self)
    #expect(applied.appliedAttributionSources == ["apple_ads"])
    #expect(applied.attributionStatus == ["apple_ads": .applied])
    #expect(applied.version == 2)

    let again = try await post(server, id, token: token)
    #expect(again.status == 200)
    #expect(try again.decode(ProfilePayload.self) == applied)
    #expect(server.sandbox.tally(token).calls == 1)

    // The Apple Ads fields feed targeting: campaign 542370539 is in the brand audience's A/B test.
    let flow = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)")
      .decode(PlacementFlowResponse.self)
    #expect(flow.placement.audienceId == "apple_ads_brand")
    #expect(flow.placement.abTestName == "AA price test")
    #expect(["aa_offer", "aa_offer_b"].contains(flow.flow.id))
    let stored = try #require(try server.server.store.database.profile(appId: server.alpha.app.id, id: id))
    #expect(stored.attribution.appleAds?.payload.campaignId == 542_370_539)
    #expect(stored.attribution.appleAds?.clickDate == AppleAdsDate.parse("2024-10-08T17:17Z"))
  }

  @Test("Prefer: respond-async answers 202 once the token is stored, holding no thread; the worker applies it later")
  func respondAsync() async throws {
    // A budget long enough that, without the preference, the request would wait for Apple.
    let server = try TestServer(attributionBudget: 30, mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    // Apple answers 404 first; the retry is due 5 s later on the test's clock, which stands
    // still: a request that waited for the outcome would wait out its whole budget.
    let token = "sbx|not_found=1|campaign=542370539"
    let request = Request(
      method: "POST", path: RoutePaths.appleAdsAttribution(id), query: [:],
      headers: [
        "Authorization": "Api-Key \(server.sdkKey)", "Content-Type": "application/json",
        "Prefer": "wait=5, Respond-Async",
      ],
      body: WireCoding.encode(AppleAdsTokenRequest(token: token)))
    // Suspended only until the token is committed (the clock stands still: waiting for Apple
    // would never end).
    let deferred = try #require(server.server.service.handle(request).deferred)
    let queued = await withCheckedContinuation { continuation in
      deferred.onComplete { continuation.resume(returning: $0) }
    }
    #expect(queued.status == 202)
    let pending = try WireCoding.decoder.decode(AttributionPendingResponse.self, from: queued.body)
    #expect(pending.status == .pending)
    #expect(pending.profile.attributionStatus == ["apple_ads": .pending])
    #expect(try server.server.store.database.attributionQueueDepth() == 1, "stored before the answer")
    let metrics = String(decoding: try await server.send("GET", "/metrics").body, as: UTF8.self)
    #expect(metrics.contains("tollgate_attribution_intake_batches_total 1\n"))
    #expect(metrics.contains("tollgate_attribution_intake_tokens_total 1\n"))
    await server.attributionPass()
    server.time.advance(days: 5.0 / 86_400)
    await server.attributionPass()
    #expect(try await profile(server, id).attributionStatus == ["apple_ads": .applied])
    #expect(server.sandbox.tally(token).calls == 2)
  }

  @Test("respond-async with a token whose outcome is known answers that outcome (200), not 202 with nothing queued")
  func respondAsyncSettled() async throws {
    let server = try TestServer(attributionBudget: 5, mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let token = "sbx|status=400"
    let first = try await post(server, id, token: token)
    #expect(try first.decode(ProfilePayload.self).attributionStatus == ["apple_ads": .invalid])
    let again = try await server.send(
      "POST", RoutePaths.appleAdsAttribution(id), key: server.sdkKey, headers: ["Prefer": "respond-async"],
      body: WireCoding.encode(AppleAdsTokenRequest(token: token)))
    #expect(again.status == 200)
    #expect(try again.decode(ProfilePayload.self).attributionStatus == ["apple_ads": .invalid])
    #expect(try await profile(server, id).attributionStatus == ["apple_ads": .invalid])
    #expect(server.sandbox.tally(token).calls == 1)
  }

  @Test("the Prefer header is read as RFC 7240 lists it")
  func preferParsing() {
    #expect(AttributionController.respondAsync("respond-async"))
    #expect(AttributionController.respondAsync("return=minimal, RESPOND-ASYNC ;x=1"))
    #expect(!AttributionController.respondAsync("respond-asynchronously"))
    #expect(!AttributionController.respondAsync("return=respond-async"))
    #expect(!AttributionController.respondAsync(nil))
  }

  @Test("404 twice then 200: 202 pending, retried every 5 s on the clock, then applied")
  func notReadyThenApplied() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let token = "sbx|not_found=2|campaign=7"
    let pending = try await post(server, id, token: token)
    #expect(pending.status == 202)
    #expect(try pending.decode(AttributionPendingResponse.self).status == .pending)
    #expect(try await profile(server, id).attributionStatus == ["apple_ads": .pending])
    await server.attributionPass()  // the first answer (404) is stored; nothing is due before 5 s
    #expect(server.sandbox.tally(token).calls == 1)
    server.time.advance(days: 5.0 / 86_400)
    await server.attributionPass()
    #expect(server.sandbox.tally(token).calls == 2)
    server.time.advance(days: 5.0 / 86_400)
    await server.attributionPass()
    #expect(server.sandbox.tally(token).calls == 3)
    let applied = try await profile(server, id)
    #expect(applied.appliedAttributionSources == ["apple_ads"])
    #expect(applied.attributionStatus == ["apple_ads": .applied])
  }

  @Test("400: invalid, never retried, never applied")
  func invalidToken() async throws {
    let server = try TestServer(attributionBudget: 5, mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let result = try await post(server, id, token: "sbx|status=400")
    #expect(result.status == 200)
    #expect(try result.decode(ProfilePayload.self).attributionStatus == ["apple_ads": .invalid])
    server.time.advance(days: 1)
    await server.attributionPass()
    #expect(server.sandbox.tally("sbx|status=400").calls == 1)
    #expect(try await profile(server, id).appliedAttributionSources.isEmpty)
  }

  @Test("attribution: false is recorded as not attributed; the source is not applied")
  func notAttributed() async throws {
    let server = try TestServer(attributionBudget: 5, mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let result = try await post(server, id, token: "sbx|attribution=false")
    let payload = try result.decode(ProfilePayload.self)
    #expect(payload.attributionStatus == ["apple_ads": .notAttributed])
    #expect(payload.appliedAttributionSources.isEmpty)
  }

  @Test("developer-mode ids are applied only when the config allows test attribution")
  func developerMode() async throws {
    let server = try TestServer(attributionBudget: 5, mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let ignored = try await server.createProfile()
    #expect(
      try await post(server, ignored, token: "sbx|dev").decode(ProfilePayload.self).attributionStatus == [
        "apple_ads": .testIgnored
      ])

    var document = try WireCoding.decoder.decode(
      JSONValue.self, from: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
    guard case .object(var root) = document else { throw CancellationError() }
    root["settings"] = .object(["allow_test_attribution": .bool(true)])
    document = .object(root)
    #expect(
      try await server.admin(
        "PUT", "/v1/admin/config", json: String(decoding: WireCoding.encode(document), as: UTF8.self)
      ).status == 200)
    let allowed = try await server.createProfile()
    let applied = try await post(server, allowed, token: "sbx|dev|n=2").decode(ProfilePayload.self)
    #expect(applied.appliedAttributionSources == ["apple_ads"])
  }

  @Test("a retry pending at shutdown is resumed by the next process: applied once, one success at Apple")
  func resumesAfterRestart() async throws {
    let directory = temporaryDirectory()
    let sandbox = AppleAdsSandbox()
    let time = ManualTime()
    var server = try TestServer(directory: directory, time: time, sandbox: sandbox, mode: .inProcess)
    let id = try await server.createProfile()
    let token = "sbx|fail=1|campaign=9"
    #expect(try await post(server, id, token: token).status == 202)
    await server.attributionPass()
    #expect(sandbox.tally(token).calls == 1)
    server.stop()

    time.advance(days: 10.0 / 86_400)
    server = try TestServer(directory: directory, time: time, sandbox: sandbox, mode: .inProcess)
    defer { server.stop() }
    await server.attributionPass()
    await server.attributionPass()
    #expect(sandbox.tally(token) == AppleAdsSandbox.Tally(calls: 2, successes: 1))
    let applied = try await profile(server, id)
    #expect(applied.appliedAttributionSources == ["apple_ads"])
    #expect(applied.version == 2)
  }

  @Test("a long poll answers as soon as the source is applied; a placement long poll returns the AA flow")
  func longPolls() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    let token = "sbx|not_found=1|campaign=1"
    #expect(try await post(server, id, token: token).status == 202)
    await server.attributionPass()

    async let waitedProfile = server.sdk("GET", "\(RoutePaths.profile(id))?wait_for=apple_ads&timeout_ms=20000")
    async let waitedFlow = server.sdk(
      "GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)&wait_for=apple_ads&timeout_ms=20000")
    let waits = server.server.service.waits
    await spinUntil { waits.count == 2 }
    server.time.advance(days: 5.0 / 86_400)
    await server.attributionPass()
    let profile = try await waitedProfile.decode(ProfilePayload.self)
    #expect(profile.appliedAttributionSources == ["apple_ads"])
    let flow = try await waitedFlow.decode(PlacementFlowResponse.self)
    #expect(flow.placement.audienceId == "apple_ads_any")
    #expect(flow.flow.id == "aa_offer")
    // A request that waited carries the profile it was decided for.
    #expect(flow.profile?.appliedAttributionSources == ["apple_ads"])
    #expect(flow.profile?.id == id)
    #expect(waits.count == 0)
    // One that did not wait does not.
    let plain = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)")
    #expect(try plain.decode(PlacementFlowResponse.self).profile == nil)
  }

  @Test("the token handed over with the profile's creation is queued at once; a bad one creates nothing")
  func tokenWithCreation() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = UUID().uuidString.lowercased()
    func create(_ token: String) async throws -> HTTPResult {
      let body = CreateProfileRequest(
        profileId: id, install: InstallMeta(appVersion: "2.0.0"), appleAdsToken: token)
      return try await server.sdk(
        "POST", RoutePaths.profiles, json: String(decoding: WireCoding.encode(body), as: UTF8.self))
    }
    let refused = try await create("")
    #expect(refused.status == 422)
    #expect(String(decoding: refused.body, as: UTF8.self).contains("$.apple_ads_token"))
    #expect(try server.server.store.database.profile(appId: server.alpha.app.id, id: id) == nil)

    let token = "sbx|campaign=542370539"
    let created = try await create(token)
    #expect(created.status == 201)
    #expect(try created.decode(ProfilePayload.self).attributionStatus == ["apple_ads": .pending])
    await server.attributionPass()
    let profile = try await profile(server, id)
    #expect(profile.appliedAttributionSources == ["apple_ads"])
    #expect(profile.install.appVersion == "2.0.0")
    #expect(server.sandbox.tally(token) == AppleAdsSandbox.Tally(calls: 1, successes: 1))
    // Creating again (a retried request) neither duplicates the job nor asks Apple again.
    #expect(try await create(token).status == 200)
    await server.attributionPass()
    #expect(server.sandbox.tally(token).calls == 1)
  }

  @Test("a long poll with nothing to wait for answers with the current state when its time is up")
  func longPollTimeout() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    let flow = try await server.sdk(
      "GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)&wait_for=apple_ads&timeout_ms=50")
    #expect(try flow.decode(PlacementFlowResponse.self).flow.id == "standard")
    let bad = try await server.sdk("GET", "\(RoutePaths.profile(id))?wait_for=adjust&timeout_ms=5")
    #expect(bad.status == 400)
    // timeout_ms is 0–30000 (wait_for alone waits the default 5 s), checked even without wait_for.
    #expect(try await server.sdk("GET", "\(RoutePaths.profile(id))?wait_for=apple_ads&timeout_ms=30001").status == 400)
    #expect(try await server.sdk("GET", "\(RoutePaths.profile(id))?timeout_ms=-1").status == 400)
    #expect(try await server.sdk("GET", "\(RoutePaths.profile(id))?timeout_ms=20").status == 200)
  }

  @Test("stopping the server answers suspended long polls instead of dropping them")
  func shutdownAnswersLongPolls() async throws {
    let server = try TestServer(mode: .inProcess)
    let id = try await server.createProfile()
    async let waited = server.sdk("GET", "\(RoutePaths.profile(id))?wait_for=apple_ads&timeout_ms=20000")
    let waits = server.server.service.waits
    await spinUntil { waits.count == 1 }
    server.stop()
    let result = try await waited
    #expect(result.status == 200)
    #expect(try result.decode(ProfilePayload.self).id == id)
  }

  @Test("bad tokens and unknown profiles are refused")
  func badInput() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    #expect(try await post(server, id, token: "").status == 422)
    #expect(try await post(server, id, token: String(repeating: "a", count: 8_193)).status == 422)
    #expect(try await post(server, UUID().uuidString, token: "sbx").errorCode == "profile_not_found")
    #expect(try await server.sdk("POST", RoutePaths.appleAdsAttribution(id), json: #"{"tok":1}"#).status == 400)
  }

  @Test(
    "Apple's retry rules",
    arguments: [
      (AppleAdsAnswer.notReady, 0, 0, "retry"), (.notReady, 2, 2, "failed"), (.unavailable("500"), 0, 0, "retry"),
      (.unavailable("500"), 9, 0, "failed"), (.invalid("400"), 0, 0, "invalid"),
      (.payload(AppleAdsPayload(attribution: false)), 0, 0, "not_attributed"),
      (.payload(AppleAdsPayload(attribution: true, campaignId: 1)), 0, 0, "applied"),
      (
        .payload(AppleAdsPayload(attribution: true, orgId: 1_234_567_890, campaignId: 1_234_567_890)), 0, 0,
        "test_ignored"
      ),
    ])
  func policy(answer: AppleAdsAnswer, attempts: Int, notFound: Int, expected: String) {
    let job = AttributionJob(
      appId: 1, profileId: "p", tokenHash: "h", token: "t", status: .pending, attempts: attempts, notFound: notFound,
      nextAttemptAt: Date(), lastError: nil)
    let now = Date(timeIntervalSince1970: 0)
    switch AttributionPolicy().outcome(of: answer, job: job, now: now, allowTestAttribution: false) {
    case .retry(let at, _, _, _):
      #expect(expected == "retry")
      #expect(at.timeIntervalSince(now) == 5)
    case .final(let status, _, _, _):
      #expect(status.rawValue == expected)
    }
  }

  @Test("click dates without seconds are parsed")
  func clickDates() {
    #expect(AppleAdsDate.parse("2024-10-08T17:17Z") == Date(timeIntervalSince1970: 1_728_407_820))
    #expect(AppleAdsDate.parse("2024-10-08T17:17:30Z") == Date(timeIntervalSince1970: 1_728_407_850))
    #expect(AppleAdsDate.parse("2024-10-08T19:17+02:00") == Date(timeIntervalSince1970: 1_728_407_820))
    #expect(AppleAdsDate.parse("yesterday") == nil)
  }
}

/// Yields until `condition` holds (bounded), for effects inside the server's threads.
func spinUntil(_ condition: @Sendable () -> Bool) async {
  for _ in 0..<200_000 {
    if condition() { return }
    await Task.yield()
  }
}
