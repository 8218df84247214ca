import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("Placement resolution, default audience and fallback")
struct PlacementTests {
  @Test("the first matching audience wins; the default flow is the last resort")
  func resolution() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let plain = try await server.createProfile(install: #"{"app_version":"2.1.0"}"#)
    let first = try await server.sdk("GET", "/v1/sdk/placements/settings_upgrade/flow?profile_id=\(plain)")
    let before = try first.decode(PlacementFlowResponse.self)
    #expect(before.flow.id == "standard")
    #expect(before.placement.audienceName == "All Users")
    #expect(before.placement.abTestName == nil)
    #expect(before.placement.revision == 1)

    _ = try await server.sdk("PATCH", "/v1/sdk/profiles/\(plain)", json: #"{"custom_attributes":{"sessions":25}}"#)
    let after = try await server.sdk("GET", "/v1/sdk/placements/settings_upgrade/flow?profile_id=\(plain)")
    let upsell = try after.decode(PlacementFlowResponse.self)
    #expect(upsell.flow.id == "power_user")
    #expect(upsell.flow.products == ["pro_lifetime"])
    #expect(upsell.placement.audienceId == "power_users")
    #expect(upsell.placement.audienceName == "Power users on recent versions")
    #expect(upsell.flow.variationId == "settings_upgrade:power_users:power_user")

    // The same attributes on an old app version: the semver rule says no.
    let old = try await server.createProfile(install: #"{"app_version":"1.9.9"}"#)
    _ = try await server.sdk("PATCH", "/v1/sdk/profiles/\(old)", json: #"{"custom_attributes":{"sessions":25}}"#)
    let oldFlow = try await server.sdk("GET", "/v1/sdk/placements/settings_upgrade/flow?profile_id=\(old)")
    #expect(try oldFlow.decode(PlacementFlowResponse.self).flow.id == "standard")
  }

  @Test("profile.age_days follows the injected clock")
  func ageDays() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let config =
      #"{"flows":[{"id":"new"},{"id":"veteran"}],"audiences":[{"id":"week_old","rule":{"profile.age_days":{"$gte":7}}}],"placements":[{"id":"home","targets":[{"audience":"week_old","flow":"veteran"}],"default":"new"}]}"#
    #expect(try await server.admin("PUT", "/v1/admin/config", json: config).status == 200)
    let id = try await server.createProfile()
    #expect(
      try await server.sdk("GET", "/v1/sdk/placements/home/flow?profile_id=\(id)").decode(PlacementFlowResponse.self)
        .flow.id == "new")
    server.time.advance(days: 7)
    #expect(
      try await server.sdk("GET", "/v1/sdk/placements/home/flow?profile_id=\(id)").decode(PlacementFlowResponse.self)
        .flow.id == "veteran")
  }

  @Test("a rule that cannot be evaluated is no match and is logged, never a 500")
  func unevaluableRule() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let config =
      #"{"flows":[{"id":"std"},{"id":"vip"}],"audiences":[{"id":"high","rule":{"custom.level":{"$gt":5}}}],"placements":[{"id":"home","targets":[{"audience":"high","flow":"vip"}],"default":"std"}]}"#
    #expect(try await server.admin("PUT", "/v1/admin/config", json: config).status == 200)
    let id = try await server.createProfile()
    _ = try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"level":"very"}}"#)
    let result = try await server.sdk("GET", "/v1/sdk/placements/home/flow?profile_id=\(id)")
    #expect(result.status == 200)
    #expect(try result.decode(PlacementFlowResponse.self).flow.id == "std")
    #expect(server.log.all.contains { $0.contains("rule of audience high could not be evaluated for profile \(id)") })
  }

  @Test("remote config locale: exact, then language, then another region, then en, then the first")
  func localeFallback() throws {
    let available = ["en", "fr", "pt-BR", "zh_Hant"]
    #expect(LocaleMatcher.best(for: "pt-BR", among: available) == "pt-BR")
    #expect(LocaleMatcher.best(for: "fr_CA", among: available) == "fr")
    #expect(LocaleMatcher.best(for: "pt-PT", among: available) == "pt-BR")
    #expect(LocaleMatcher.best(for: "ZH-hant", among: available) == "zh_Hant")
    #expect(LocaleMatcher.best(for: "de", among: available) == "en")
    #expect(LocaleMatcher.best(for: nil, among: available) == "en")
    #expect(LocaleMatcher.best(for: "de", among: ["ja", "es"]) == "es")
    #expect(LocaleMatcher.best(for: "de", among: [String]()) == nil)
  }

  @Test("the locale query wins over the profile's locale")
  func localeQuery() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile(install: #"{"locale":"fr-FR"}"#)
    let profileLocale = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)")
    #expect(try profileLocale.decode(PlacementFlowResponse.self).flow.remoteConfig?.locale == "fr")
    let english = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)&locale=en-GB")
    let remote = try #require(try english.decode(PlacementFlowResponse.self).flow.remoteConfig)
    #expect(remote.locale == "en")
    #expect(remote.data == .object(["title": .string("Go Pro"), "cta": .string("Start free trial")]))
  }

  @Test("unknown placement, unknown profile and a missing profile_id are told apart")
  func notFound() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    let placement = try await server.sdk("GET", "/v1/sdk/placements/nope/flow?profile_id=\(id)")
    #expect(placement.status == 404)
    #expect(placement.errorCode == "placement_not_found")
    let profile = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(UUID().uuidString)")
    #expect(profile.status == 404)
    #expect(profile.errorCode == "profile_not_found")
    let missing = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow")
    #expect(missing.status == 400)
    #expect(missing.errorCode == "missing_parameter")
    #expect(try await server.sdk("GET", "/v1/sdk/placements/nope/default").errorCode == "placement_not_found")
  }

  @Test("default-audience answers are identical bytes with a strong ETag, Cache-Control and 304")
  func defaultAudience() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let first = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default?locale=fr-CA")
    let second = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default?locale=fr")
    #expect(first.status == 200)
    #expect(first.body == second.body)
    let etag = try #require(first.header("ETag"))
    #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
    #expect(first.header("ETag") == second.header("ETag"))
    #expect(first.header("Cache-Control") == "public, max-age=60")
    let response = try first.decode(PlacementFlowResponse.self)
    #expect(response.flow.id == "standard")
    #expect(response.flow.remoteConfig?.locale == "fr")
    #expect(response.placement.audienceName == "All Users")
    let english = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default")
    #expect(english.header("ETag") != etag)
    let notModified = try await server.send(
      "GET", "/v1/sdk/placements/onboarding/default?locale=fr", key: server.sdkKey, headers: ["If-None-Match": etag])
    #expect(notModified.status == 304)

    // A new revision changes the bytes (the revision is part of them) and so the ETag.
    try await server.applySampleConfig()
    let newer = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default?locale=fr")
    #expect(newer.header("ETag") != etag)
    #expect(try newer.decode(PlacementFlowResponse.self).placement.revision == 2)
  }

  @Test("the fallback file has every placement's default flow in every locale; the CLI export matches")
  func fallbackFile() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    #expect(try await server.sdk("GET", "/v1/sdk/fallback").errorCode == "config_not_found")
    try await server.applySampleConfig()
    let result = try await server.sdk("GET", "/v1/sdk/fallback")
    #expect(result.status == 200)
    let file = try result.decode(FallbackFile.self)
    #expect(file.formatVersion == 1)
    #expect(file.revision == 1)
    #expect(file.placements.map(\.id) == ["onboarding", "settings_upgrade"])
    let onboarding = file.placements[0]
    #expect(onboarding.flow.id == "standard")
    #expect(Set(onboarding.flow.remoteConfigs.keys) == ["en", "fr"])
    #expect(
      onboarding.flow.remoteConfigs["fr"]
        == .object(["title": .string("Passez à Pro"), "cta": .string("Essai gratuit")]))

    let exported = try #require(
      try FallbackExport(database: server.server.store.database, time: server.time).fallbackFile(
        appId: server.alpha.app.id))
    #expect(try WireCoding.decoder.decode(FallbackFile.self, from: exported) == file)
  }
}
