import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

@testable import Adapty

/// Records delegate calls.
final class Observer: AdaptyDelegate {
  private let received = Mutex<[AdaptyProfile]>([])
  var profiles: [AdaptyProfile] { received.withLock { $0 } }
  func didLoadLatestProfile(_ profile: AdaptyProfile) { received.withLock { $0.append(profile) } }
}

/// Waits on `Adapty.profileUpdates` for a profile that satisfies `check`.
func profile(where check: @Sendable (AdaptyProfile) -> Bool) async -> AdaptyProfile? {
  for await profile in Adapty.profileUpdates where check(profile) { return profile }
  return nil
}

/// These tests drive the static `Adapty` API, which is process-wide: they run one at a time.
@Suite("SDK ↔ server end to end", .serialized, .timeLimit(.minutes(5)))
struct EndToEndTests {
  @Test("first activation creates the profile on the server and fires the delegate")
  func firstActivation() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let observer = Observer()
    Adapty.delegate = observer
    try await Adapty.activate(with: live.configuration())
    let created = try #require(await profile { _ in true })
    #expect(observer.profiles.first == created)
    let (status, stored) = try await live.admin("v1/admin/profiles/\(created.profileId)")
    #expect(status == 200)
    #expect(stored?.objectValue?["install"]?.objectValue?["sdk_version"] == .string(sdkVersion))
    await quitApp()
  }

  @Test("a relaunch delivers the cached profile during activation, even with the server down")
  func relaunch() async throws {
    let live = try LiveServer()
    try await Adapty.activate(with: live.configuration())
    let first = try await Adapty.getProfile()
    await quitApp()
    live.stop()

    let observer = Observer()
    Adapty.delegate = observer
    try await Adapty.activate(with: live.configuration())
    #expect(observer.profiles == [first])
    #expect(try await Adapty.getProfile() == first)  // the cached profile answers when offline
    await quitApp()
  }

  @Test("getFlow resolves the audience from a custom attribute; the default audience needs no profile")
  func segmentedAndDefault() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    let before = try await Adapty.getFlow(placementId: "settings_upgrade", locale: "fr")
    #expect(before.id == "standard")
    #expect(before.placement.audienceName == "All Users")
    #expect(before.remoteConfig?.locale == "fr")
    #expect(before.remoteConfig?.dictionary?["title"] as? String == "Passez à Pro")

    try await Adapty.updateProfile(
      params: try AdaptyProfileParameters.Builder().with(customAttribute: 25, forKey: "sessions").build())
    let after = try await Adapty.getFlow(placementId: "settings_upgrade")
    #expect(after.id == "power_user")
    #expect(after.source == .segmented)
    #expect(after.placement.audienceName == "Power users on recent versions")
    #expect(after.vendorProductIds == ["pro_lifetime"])

    let everyone = try await Adapty.getFlowForDefaultAudience(placementId: "onboarding", locale: "en")
    #expect(everyone.id == "standard")
    #expect(everyone.source == .defaultAudience)
    await #expect(throws: AdaptyError.self) { try await Adapty.getFlow(placementId: "no_such_placement") }
    await quitApp()
  }

  @Test("with the server stopped, getFlow answers from the fallback file")
  func fallbackWhenServerDown() async throws {
    let live = try LiveServer()
    try await Adapty.setFallback(fileURL: try live.exportFallback())  // before activation
    live.stop()
    try await Adapty.activate(with: live.configuration())
    let flow = try await Adapty.getFlow(placementId: "onboarding", locale: "fr-FR", loadTimeout: 2)
    #expect(flow.source == .fallback)
    #expect(flow.id == "standard")
    #expect(flow.remoteConfig?.locale == "fr")
    do {
      _ = try await Adapty.getFlow(placementId: "missing", loadTimeout: 1)
      Issue.record("expected networkFailed")
    } catch {
      #expect(error.adaptyErrorCode == .networkFailed)
    }
    await quitApp()
  }

  @Test("logShowFlow events reach the stats route")
  func impressions() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    let flow = try await Adapty.getFlow(placementId: "onboarding")
    try await Adapty.logShowFlow(flow)
    try await Adapty.logShowFlow(flow)
    let runtime = try await Facade.shared.runtime()
    await runtime.events.drained()
    let (status, stats) = try await live.admin("v1/admin/stats/placements/onboarding")
    #expect(status == 200)
    let rows = stats?.objectValue?["audiences"]?.arrayValue?.first?.objectValue?["variations"]?.arrayValue ?? []
    #expect(rows.count == 1)
    #expect(rows.first?.objectValue?["variation_id"] == .string(flow.variationId))
    #expect(rows.first?.objectValue?["impressions"] == .int(2))
    await quitApp()
  }

  @Test("a wrong API key is notActivated (2002) with a message that says so")
  func wrongKey() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let configuration = AdaptyConfiguration.builder(withAPIKey: "tg_pub_wrong").with(backendBaseUrl: live.baseURL)
      .with(storageDirectory: live.sdkDirectory).build()
    try await Adapty.activate(with: configuration)
    do {
      _ = try await Adapty.getProfile()
      Issue.record("expected the key to be rejected")
    } catch {
      #expect(error.adaptyErrorCode == .notActivated)
      #expect(error.message.contains("rejected the API key"))
    }
    await quitApp()
  }
}
