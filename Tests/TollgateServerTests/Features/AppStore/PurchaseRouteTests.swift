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

/// Transactions from the SDK and notifications from Apple over real HTTP, signed by a local
/// chain the test server trusts in place of Apple's root.
@Suite("Purchases over HTTP")
struct PurchaseRouteTests {
  typealias F = StoreKitFixtures

  /// A server trusting `signer`'s root, with the sample configuration (premium = the pro products).
  struct Harness {
    let signer: StoreKitSigner
    let server: TestServer

    init() async throws {
      signer = try StoreKitSigner(appleNames: false)
      server = try TestServer(
        appStoreVerifier: try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8)), mode: .inProcess)
      try await server.applySampleConfig()
    }

    func sign(_ transaction: TransactionPayload) throws -> String { try signer.sign(json: F.object(transaction)) }

    func post(_ transaction: TransactionPayload, profile: String, variation: String? = nil) async throws -> HTTPResult {
      try await post(jws: try sign(transaction), profile: profile, variation: variation)
    }

    func post(jws: String, profile: String, variation: String? = nil) async throws -> HTTPResult {
      let body = WireCoding.encode(TransactionRequest(signedTransaction: jws, variationId: variation))
      return try await server.sdk(
        "POST", "/v1/sdk/profiles/\(profile)/transactions", json: String(decoding: body, as: UTF8.self))
    }

    func notify(_ payload: [String: Any], app: String = "alpha") async throws -> HTTPResult {
      let jws = try signer.sign(json: payload)
      let body = WireCoding.encode(AppStoreNotificationRequest(signedPayload: jws))
      return try await server.send(
        "POST", "/v1/app-store/notifications/\(app)", body: body)
    }

    func profile(_ id: String) async throws -> ProfilePayload {
      try await server.sdk("GET", "/v1/sdk/profiles/\(id)").decode(ProfilePayload.self)
    }
  }

  @Test("a purchase unlocks premium, once, with a new profile version")
  func purchase() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let id = try await harness.server.createProfile()
    let transaction = F.transaction("1000", purchased: 0, expires: 30, token: id)
    let first = try await harness.post(transaction, profile: id, variation: "onboarding:default:standard")
    #expect(first.status == 200)
    let profile = try first.decode(ProfilePayload.self)
    let premium = try #require(profile.accessLevels["premium"])
    #expect(premium.isActive)
    #expect(premium.vendorProductId == "pro_monthly")
    #expect(premium.expiresAt == Timestamp.string(F.date(30)))
    #expect(profile.subscriptions["pro_monthly"]?.state == .active)
    #expect(profile.version == 2)

    let again = try await harness.post(transaction, profile: id)
    #expect(again.status == 200)
    #expect(try again.decode(ProfilePayload.self) == profile)
    #expect(try harness.server.server.store.database.transactions(appId: 1, profileId: id).count == 1)
    #expect(
      try harness.server.server.store.database.transactions(appId: 1, profileId: id).first?.variationId
        == "onboarding:default:standard")
  }

  @Test("each refusal is a 422 with its own code, and nothing is stored")
  func refusals() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let id = try await harness.server.createProfile()
    var other = F.transaction("1000", purchased: 0, expires: 30)
    other.bundleId = "com.example.other"
    #expect(try await harness.post(other, profile: id).errorCode == "bundle_mismatch")
    var xcode = F.transaction("1001", purchased: 0, expires: 30)
    xcode.environment = "Xcode"
    #expect(try await harness.post(xcode, profile: id).errorCode == "environment_not_allowed")
    #expect(try await harness.post(jws: "not-a-jws", profile: id).errorCode == "malformed_jws")
    // Apple's real TEST notification is Apple-signed, but this server trusts the test root only.
    let apple = try String(
      contentsOf: repositoryRoot.appendingPathComponent("Fixtures/appstore/test_notification.jws"), encoding: .utf8)
    #expect(
      try await harness.post(jws: apple.trimmingCharacters(in: .whitespacesAndNewlines), profile: id).errorCode
        == "untrusted_certificate")
    let signed = try harness.sign(F.transaction("1002", purchased: 0, expires: 30))
    var parts = signed.split(separator: ".").map(String.init)
    parts[2] = String(parts[2].reversed())
    let tampered = try await harness.post(jws: parts.joined(separator: "."), profile: id)
    #expect(tampered.status == 422)
    #expect(["invalid_signature", "malformed_jws"].contains(tampered.errorCode))
    #expect(try await harness.profile(id).accessLevels.isEmpty)
    #expect(try await harness.post(F.transaction("1003", purchased: 0), profile: UUID().uuidString).status == 404)
  }

  @Test("purchases need app_store in the configuration")
  func notConfigured() async throws {
    let signer = try StoreKitSigner(appleNames: false)
    let server = try TestServer(
      appStoreVerifier: try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8)), mode: .inProcess)
    defer { server.stop() }
    let id = try await server.createProfile()
    let jws = try signer.sign(json: F.object(F.transaction("1000", purchased: 0, expires: 30)))
    let body = String(decoding: WireCoding.encode(TransactionRequest(signedTransaction: jws)), as: UTF8.self)
    let result = try await server.sdk("POST", "/v1/sdk/profiles/\(id)/transactions", json: body)
    #expect(result.status == 422)
    #expect(result.errorCode == "app_store_not_configured")
  }

  @Test("an expiry notification makes the next profile read inactive; duplicates and TEST are acknowledged")
  func notifications() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let id = try await harness.server.createProfile()
    let transaction = F.transaction("1000", purchased: 0, expires: 30, token: id)
    _ = try await harness.post(transaction, profile: id)
    harness.server.time.advance(days: 31)
    let expired = F.notification(
      "EXPIRED", subtype: "VOLUNTARY", uuid: "n-1", signed: 31, transaction: transaction,
      renewal: F.renewal(autoRenew: 0, intent: 1, signed: 31))
    let first = try await harness.notify(expired)
    #expect(first.status == 200)
    #expect(try first.decode(AppStoreNotificationAck.self) == .init(notificationUUID: "n-1", duplicate: false))
    let profile = try await harness.profile(id)
    #expect(profile.accessLevels["premium"]?.isActive == false)
    #expect(profile.subscriptions["pro_monthly"]?.expirationReason == "voluntary")

    let again = try await harness.notify(expired)
    #expect(try again.decode(AppStoreNotificationAck.self).duplicate)
    #expect(try await harness.profile(id).version == profile.version)

    let test = try await harness.notify(F.notification("TEST", uuid: "t-1", signed: 31))
    #expect(test.status == 200)
    #expect(harness.server.log.all.contains { $0.contains("TEST notification t-1") })
    let unknown = try await harness.notify(F.notification("SOMETHING_NEW", uuid: "u-1", signed: 31))
    #expect(unknown.status == 200)
    #expect(try await harness.notify(F.notification("TEST", signed: 31), app: "nope").status == 404)
    #expect(
      try await harness.notify(F.notification("TEST", signed: 31, bundleId: "com.example.other")).errorCode
        == "bundle_mismatch")
  }

  @Test("a notification that arrives before its transaction is kept and applied when the SDK sends it")
  func notificationFirst() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let id = try await harness.server.createProfile()
    harness.server.time.advance(days: 31)
    let initial = F.transaction("1000", purchased: 0, expires: 30)
    let renewed = F.transaction("1001", purchased: 30, expires: 60)
    let ack = try await harness.notify(
      F.notification("DID_RENEW", signed: 30, transaction: renewed, renewal: F.renewal(signed: 30)))
    #expect(ack.status == 200)
    #expect(harness.server.log.all.contains { $0.contains("kept for a later owner: 1000") })
    let profile = try await harness.post(initial, profile: id).decode(ProfilePayload.self)
    #expect(profile.accessLevels["premium"]?.isActive == true)
    #expect(profile.accessLevels["premium"]?.vendorTransactionId == "1001")
    #expect(profile.accessLevels["premium"]?.renewedAt == Timestamp.string(F.date(30)))
  }

  @Test("a restore on another profile transfers the access by default; shared and off as configured")
  func sharing() async throws {
    for (mode, firstKeeps, secondGets) in [("transfer", false, true), ("shared", true, true), ("off", true, false)] {
      let harness = try await Harness()
      defer { harness.server.stop() }
      if mode != "transfer" {
        var document =
          try JSONSerialization.jsonObject(
            with: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
          as! [String: Any]
        document["settings"] = ["access_level_sharing": mode]
        let body = try JSONSerialization.data(withJSONObject: document)
        #expect(
          try await harness.server.admin("PUT", "/v1/admin/config", json: String(decoding: body, as: UTF8.self)).status
            == 200)
      }
      let first = try await harness.server.createProfile()
      let second = try await harness.server.createProfile()
      let transaction = F.transaction("1000", purchased: 0, expires: 30, token: first)
      _ = try await harness.post(transaction, profile: first)
      let restored = try await harness.post(transaction, profile: second).decode(ProfilePayload.self)
      #expect((restored.accessLevels["premium"]?.isActive ?? false) == secondGets, "\(mode)")
      #expect((try await harness.profile(first).accessLevels["premium"]?.isActive ?? false) == firstKeeps, "\(mode)")
    }
  }

  @Test("reconfigured access levels apply to existing purchases on the next read")
  func reconfigured() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let id = try await harness.server.createProfile()
    _ = try await harness.post(F.transaction("1000", purchased: 0, expires: 30, token: id), profile: id)
    let before = try await harness.profile(id)
    #expect(before.accessLevels.keys.sorted() == ["premium"])
    var document =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))) as! [String: Any]
    document["access_levels"] = [
      ["id": "premium", "products": ["pro_annual"]], ["id": "ad_free", "products": ["pro_monthly", "pro_annual"]],
    ]
    let body = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
    #expect(try await harness.server.admin("PUT", "/v1/admin/config", json: body).status == 200)
    let after = try await harness.profile(id)
    #expect(after.accessLevels.keys.sorted() == ["ad_free"])
    #expect(after.accessLevels["ad_free"]?.isActive == true)
    #expect(after.version == before.version + 1)
    #expect(try await harness.profile(id).version == after.version, "derived once")
  }

  @Test("audiences see purchases: an expired subscriber gets the win-back flow")
  func targeting() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let id = try await harness.server.createProfile()
    let flow = { () async throws -> String? in
      try await harness.server.sdk("GET", "/v1/sdk/placements/settings_upgrade/flow?profile_id=\(id)")
        .decode(PlacementFlowResponse.self).flow.id
    }
    #expect(try await flow() == "standard")
    _ = try await harness.post(F.transaction("1000", purchased: 0, expires: 30, token: id), profile: id)
    #expect(try await flow() == "standard")
    harness.server.time.advance(days: 31)
    #expect(try await flow() == "win_back")
  }
}

extension PurchaseRouteTests {
  @Test("a profile's activity shows the paywall the reports credit, and the SDK's only where it differs")
  func activityCredit() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let server = harness.server
    let id = try await server.createProfile()
    // Seen at day 0 (the server's clock), bought 1 h later without the SDK naming a paywall:
    // the last flow shown gets the credit.
    let shown = try await server.sdk(
      "POST", "/v1/sdk/events",
      json: #"""
        {"events":[{"type":"flow_shown","event_id":"e1","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"onboarding:default:standard"}]}
        """#)
    #expect(shown.status == 200)
    let bought = F.transaction("1000", purchased: 1.0 / 24, expires: 30, token: id)
    #expect(try await harness.post(bought, profile: id).status == 200)
    // The renewal arrives from the SDK naming another paywall: renewals follow the first transaction.
    let renewal = F.transaction("1001", purchased: 30, expires: 60, signed: 30, reason: "RENEWAL", token: id)
    #expect(try await harness.post(renewal, profile: id, variation: "settings_upgrade:default:standard").status == 200)

    let activity = try await server.admin("GET", "/v1/admin/profiles/\(id)/activity")
    let list = activity.json?.objectValue?["transactions"]?.arrayValue ?? []
    let transactions = list.compactMap(\.objectValue)
    #expect(transactions.count == 2)
    let byId = Dictionary(uniqueKeysWithValues: transactions.map { ($0["transaction_id"]?.stringValue ?? "", $0) })
    #expect(byId["1000"]?["variation_id"] == .string("onboarding:default:standard"))
    #expect(byId["1000"]?["sdk_variation_id"] == nil)
    #expect(byId["1001"]?["variation_id"] == .string("onboarding:default:standard"))
    #expect(byId["1001"]?["sdk_variation_id"] == .string("settings_upgrade:default:standard"))
  }
}

extension PurchaseRouteTests {
  @Test(
    "an entitlement the user already had is credited to no paywall, even one shown minutes before; bad origins are 422")
  func entitlementOrigin() async throws {
    let harness = try await Harness()
    defer { harness.server.stop() }
    let server = harness.server
    let id = try await server.createProfile()
    _ = try await server.sdk(
      "POST", "/v1/sdk/events",
      json: #"""
        {"events":[{"type":"flow_shown","event_id":"e1","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"onboarding:default:standard"}]}
        """#)
    let owned = F.transaction("2000", original: "2000", purchased: 1.0 / 24, expires: 30, token: id)
    let jws = try harness.sign(owned)
    func post(_ body: String) async throws -> HTTPResult {
      try await server.sdk("POST", "/v1/sdk/profiles/\(id)/transactions", json: body)
    }
    let unknown = try await post(#"{"signed_transaction":"\#(jws)","origin":"gift"}"#)
    #expect(unknown.status == 422 && unknown.errorPaths == ["$.origin"])
    let named = try await post(
      #"{"signed_transaction":"\#(jws)","origin":"entitlement","variation_id":"onboarding:default:standard"}"#)
    #expect(named.status == 422 && named.errorPaths == ["$.variation_id"])
    let accepted = try await post(#"{"signed_transaction":"\#(jws)","origin":"entitlement"}"#)
    #expect(accepted.status == 200)
    #expect(try accepted.decode(ProfilePayload.self).accessLevels["premium"]?.isActive == true)

    let activity = try await server.admin("GET", "/v1/admin/profiles/\(id)/activity")
    let transaction = activity.json?.objectValue?["transactions"]?.arrayValue?.first?.objectValue
    #expect(transaction?["transaction_id"] == .string("2000"))
    #expect(transaction?["variation_id"] == nil)
    let report = try await server.admin("GET", "/v1/admin/stats/placements/onboarding?from=2026-09-01&to=2026-09-30")
    let variations = report.json?.objectValue?["audiences"]?.arrayValue?.first?.objectValue?["variations"]?.arrayValue
    #expect(variations?.first?.objectValue?["purchasers"] == .int(0))
    #expect(variations?.first?.objectValue?["paying_viewers"] == .int(0))
  }
}
