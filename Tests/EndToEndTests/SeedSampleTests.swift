import Foundation
import Testing
import TollgateServer

@testable import Adapty

/// The seed pages' samples, run against a live server: with Apple Ads attribution applied
/// they return the AA-segmented flow; without it they return the default audience's flow
/// when their timer fires.
extension EndToEndTests {
  @Test("4.x FlowLoader: attribution applied → the Apple Ads flow")
  @MainActor func flowLoaderWithAttribution() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    Adapty.delegate = Seed4.ProfileObserver.shared
    let profile = try await Adapty.getProfile()
    try live.applyAttribution("apple_ads", to: profile.profileId)
    #expect(try await Adapty.getProfile().appliedExternalAttributionProviders == [.appleAds])

    let flow = try await Seed4.FlowLoader.getFlowOrDefault(placementId: "onboarding", timeout: 5)
    #expect(flow.id == "aa_offer")
    #expect(flow.source == .segmented)
    #expect(flow.placement.audienceName == "Apple Ads: any campaign")
    await quitApp()
  }

  @Test("4.x FlowLoader: no attribution within the timeout → the default-audience flow")
  @MainActor func flowLoaderTimesOut() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    Adapty.delegate = Seed4.ProfileObserver.shared
    let flow = try await Seed4.FlowLoader.getFlowOrDefault(placementId: "onboarding", timeout: 0.3)
    #expect(flow.id == "standard")
    #expect(flow.source == .defaultAudience)
    #expect(flow.placement.audienceName == "All Users")
    await quitApp()
  }

  @Test("3.x PaywallLoader: both paths behave like the 4.x sample")
  @available(*, deprecated, message: "Runs the 3.x seed sample.")
  @MainActor func paywallLoader() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    try await Adapty.activate(with: live.configuration())
    Adapty.delegate = Seed3.ProfileObserver.shared
    let fallback = try await Seed3.PaywallLoader.getPaywallOrDefault(placementId: "onboarding", timeout: 0.3)
    #expect(fallback.id == "standard")

    let profile = try await Adapty.getProfile()
    try live.applyAttribution("apple_ads", to: profile.profileId)
    let refreshed = try await Adapty.getProfile()
    #expect(refreshed.appliedAttributionSources.contains(.appleAds))
    let paywall = try await Seed3.PaywallLoader.getPaywallOrDefault(placementId: "onboarding", timeout: 5)
    #expect(paywall.id == "aa_offer")
    await quitApp()
  }
}
