import Foundation
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

@testable import Adapty

/// The first-launch scenarios with the real SDK, the real server and the Apple Ads stand-in.
extension EndToEndTests {
  /// Waits for the SDK's profile to carry Apple Ads attribution.
  func appliedProfile() async -> AdaptyProfile? {
    await profile { $0.appliedExternalAttributionProviders.contains(.appleAds) }
  }

  func collectorState(_ live: LiveServer, _ directory: URL? = nil) throws -> AttributionState {
    let url = (directory ?? live.sdkDirectory).appendingPathComponent(StoredFile.attribution)
    return try WireCoding.decoder.decode(AttributionState.self, from: Data(contentsOf: url))
  }

  @Test("attribution applied before the timeout: the built-in call returns the AA flow; the next launch needs no wait")
  func appliedBeforeTimeout() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let token = "sbx|delay_ms=300|campaign=542370539"
    try await Adapty.activate(with: live.configuration(token: token))
    let flow = try await Adapty.getFlow(placementId: "onboarding", awaitingAttribution: .appleAds, timeout: 5)
    #expect(flow.source == .segmented)
    #expect(flow.placement.audienceName == "Apple Ads: brand campaigns")
    #expect(flow.placement.abTestName == "AA price test")
    #expect(["aa_offer", "aa_offer_b"].contains(flow.id))
    let applied = try #require(await appliedProfile())
    await quitApp()

    // Second launch: the cached profile already has .appleAds, delivered during activation.
    let observer = Observer()
    Adapty.delegate = observer
    try await Adapty.activate(with: live.configuration(token: token))
    #expect(observer.profiles.first?.appliedExternalAttributionProviders == [.appleAds])
    #expect(observer.profiles.first?.profileId == applied.profileId)
    let again = try await Adapty.getFlow(placementId: "onboarding", awaitingAttribution: .appleAds, timeout: 5)
    #expect(again.id == flow.id)  // the stored A/B assignment
    #expect(live.sandbox.tally(token).calls == 1)
    await quitApp()
  }

  @Test("a first launch with the built-in race makes three requests, and the server still learns everything")
  func threeRequestsOnFirstLaunch() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let token = "sbx|delay_ms=300|campaign=542370539"
    try await Adapty.activate(with: live.configuration(token: token))
    let flow = try await Adapty.getFlow(placementId: "onboarding", awaitingAttribution: .appleAds, timeout: 5)
    #expect(flow.source == .segmented)
    #expect(["aa_offer", "aa_offer_b"].contains(flow.id))
    // The delegate hears of the applied attribution from the flow's answer, not from a long poll.
    let applied = try #require(await appliedProfile())
    #expect(applied.appliedExternalAttributionProviders == [.appleAds])
    let requests = try await live.sdkRequests().filter { $0.key != "POST /v1/sdk/events" }
    #expect(
      requests == [
        "POST /v1/sdk/profiles": 1, "GET /v1/sdk/placements/{placementId}/default": 1,
        "GET /v1/sdk/placements/{placementId}/flow": 1,
      ])
    // Nothing the separate requests carried is lost: install meta and the token are on the server.
    let stored = try #require(try live.store.profile(appId: live.keys.app.id, id: applied.profileId))
    #expect(stored.install.appVersion != nil)
    #expect(stored.attribution.appleAds?.payload.campaignId == 542_370_539)
    #expect(live.sandbox.tally(token).calls == 1)
    #expect(try collectorState(live).acknowledgedProfileId == applied.profileId)
    await quitApp()
  }

  @Test("with the default rate limits, a dozen first launches from one address all get their paywall, none a 429")
  func defaultLimitsLeaveFirstLaunchesAlone() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    for device in 0..<12 {
      let storage = live.directory.appendingPathComponent("device-\(device)")
      try await Adapty.activate(with: live.configuration(storage: storage, token: "sbx|campaign=542370539|d=\(device)"))
      let flow = try await Adapty.getFlow(placementId: "onboarding", awaitingAttribution: .appleAds, timeout: 5)
      #expect(flow.source == .segmented)
      _ = try await Adapty.getProfile()
      _ = try await Adapty.getFlow(placementId: "onboarding")
      await quitApp()
    }
    #expect(!(try await live.metrics()).contains("status=\"429\""))
  }

  @Test("attribution never applied: the built-in call answers with the current audience at the timeout")
  func neverApplied() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration(token: nil))
    let flow = try await Adapty.getFlow(placementId: "onboarding", awaitingAttribution: .appleAds, timeout: 0.3)
    #expect(flow.id == "standard")
    #expect(flow.placement.audienceName == "All Users")
    #expect(try collectorState(live).stopped?.contains("no token") == true)
    await quitApp()
  }

  @Test("Apple answers 404 twice then 200: applied after the retries")
  func notReadyTwice() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let token = "sbx|not_found=2|campaign=1"
    try await Adapty.activate(with: live.configuration(token: token))
    let applied = try #require(await appliedProfile())
    #expect(applied.appliedExternalAttributionProviders == [.appleAds])
    #expect(live.sandbox.tally(token) == AppleAdsSandbox.Tally(calls: 3, successes: 1))
    await quitApp()
  }

  @Test("Apple answers 400: never retried, never applied, the SDK stops")
  func invalidToken() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let token = "sbx|status=400"
    try await Adapty.activate(with: live.configuration(token: token))
    let runtime = try await Facade.shared.runtime()
    await runtime.attribution?.run()  // returns once the SDK has given up
    #expect(try collectorState(live).stopped == "the server rejected the token as invalid")
    #expect(live.sandbox.tally(token).calls == 1)
    #expect(try await Adapty.getProfile().appliedExternalAttributionProviders.isEmpty)
    await quitApp()
  }

  @Test("attribution: false is recorded and the source is not applied")
  func attributionFalse() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration(token: "sbx|attribution=false"))
    let profile = try await Adapty.getProfile()
    let runtime = try await Facade.shared.runtime()
    await runtime.attribution?.run()
    let (_, settled) = try await live.admin("v1/admin/profiles/\(profile.profileId)")
    #expect(settled?.objectValue?["attribution_status"]?.objectValue?["apple_ads"] == .string("not_attributed"))
    #expect(try await Adapty.getProfile().appliedExternalAttributionProviders.isEmpty)
    await quitApp()
  }

  @Test("the server restarts while a retry is pending: applied after the restart, one success at Apple")
  func serverRestart() async throws {
    var live = try LiveServer()
    let token = "sbx|fail=1|campaign=1"
    try await Adapty.activate(with: live.configuration(token: token))
    // Wait for the token to be acknowledged (202: Apple failed once, a retry is queued).
    while (try? collectorState(live).acknowledgedProfileId) == nil { await Task.yield() }
    live = try live.restart()
    defer { live.stop() }
    let applied = try #require(await appliedProfile())
    #expect(applied.appliedExternalAttributionProviders == [.appleAds])
    #expect(live.sandbox.tally(token) == AppleAdsSandbox.Tally(calls: 2, successes: 1))
    await quitApp()
  }

  @Test("offline on first launch: the built-in call answers from the fallback file")
  func offlineFirstLaunch() async throws {
    let live = try LiveServer()
    try await Adapty.setFallback(fileURL: try live.exportFallback())
    live.stop()
    try await Adapty.activate(with: live.configuration(token: "sbx|campaign=1"))
    let flow = try await Adapty.getFlow(placementId: "onboarding", awaitingAttribution: .appleAds, timeout: 1)
    #expect(flow.source == .fallback)
    #expect(flow.id == "standard")
    await quitApp()
  }
}
