import Foundation
import Testing
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

@testable import Adapty

/// The documented samples, run against a live server: with Apple Ads attribution applied
/// they return the AA-segmented flow; without it they return the default audience's flow
/// when their timer fires.
extension EndToEndTests {
  @Test("4.x FlowLoader: attribution applied in time → the Apple Ads flow")
  @MainActor func flowLoaderWithAttribution() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    // Apple answers after 200 ms: well inside the sample's 5 s timer.
    try await Adapty.activate(with: live.configuration(token: "sbx|delay_ms=200|campaign=1"))
    Adapty.delegate = Docs4x.ProfileObserver.shared

    let flow = try await Docs4x.FlowLoader.getFlowOrDefault(placementId: "onboarding", timeout: 5)
    #expect(flow.id == "aa_offer")
    #expect(flow.source == .segmented)
    #expect(flow.placement.audienceName == "Apple Ads: any campaign")
    #expect(Docs4x.ProfileObserver.shared.profile?.appliedExternalAttributionProviders.contains(.appleAds) == true)
    await quitApp()
  }

  @Test("4.x FlowLoader: no attribution within the timeout → the default-audience flow")
  @MainActor func flowLoaderTimesOut() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    Adapty.delegate = Docs4x.ProfileObserver.shared
    let flow = try await Docs4x.FlowLoader.getFlowOrDefault(placementId: "onboarding", timeout: 0.3)
    #expect(flow.id == "standard")
    #expect(flow.source == .defaultAudience)
    #expect(flow.placement.audienceName == "All Users")
    await quitApp()
  }

  @Test("3.x PaywallLoader: both paths behave like the 4.x sample")
  @available(*, deprecated, message: "Runs the documented 3.x sample.")
  @MainActor func paywallLoader() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    Adapty.delegate = Docs3x.ProfileObserver.shared
    let fallback = try await Docs3x.PaywallLoader.getPaywallOrDefault(placementId: "onboarding", timeout: 0.3)
    #expect(fallback.id == "standard")

    await quitApp()

    // Another install whose token Apple attributes after 200 ms.
    try await Adapty.activate(
      with: live.configuration(
        storage: live.directory.appendingPathComponent("sdk-2"), token: "sbx|delay_ms=200|campaign=1"))
    Adapty.delegate = Docs3x.ProfileObserver.shared
    let paywall = try await Docs3x.PaywallLoader.getPaywallOrDefault(placementId: "onboarding", timeout: 5)
    #expect(paywall.id == "aa_offer")
    await quitApp()
  }
}
