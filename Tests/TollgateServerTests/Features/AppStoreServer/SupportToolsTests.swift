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

/// Support's tools against a stand-in of Apple's API: refund requests answered (only with
/// consent), a customer's history refreshed from Apple, access levels given by hand.
@Suite("App Store support tools")
struct SupportToolsTests {
  typealias F = StoreKitFixtures
  typealias Harness = NotificationRecoveryTests.Harness

  static var answering: [String: Any] {
    [
      "refund_requests": ["answer": true, "customer_consent": true, "preference": "decline"]
    ]
  }

  /// A `CONSUMPTION_REQUEST` Apple signed on `day` about `transaction`, delivered.
  static func refundRequest(
    _ harness: Harness, _ transaction: TransactionPayload, day: Double, reason: String = "UNINTENDED_PURCHASE"
  ) async throws {
    var payload = F.notification("CONSUMPTION_REQUEST", signed: day, transaction: transaction)
    var data = payload["data"] as! [String: Any]
    data["consumptionRequestReason"] = reason
    payload["data"] = data
    try await harness.notification(payload, day: day, delivered: true)
  }

  static func report(_ harness: Harness) async throws -> RefundRequestReport {
    let answer = try await harness.server.admin("GET", "/v1/admin/app-store/refund-requests")
    #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
    return try answer.decode(RefundRequestReport.self)
  }

  /// Runs the answerer until nothing is due (a kick may have started a pass: waited for first).
  static func answer(_ harness: Harness) async {
    let answerer = harness.server.server.service.refundAnswers
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        answerer.waitUntilIdle()
        continuation.resume()
      }
    }
    await answerer.processDue()
  }

  @Test("a refund request is answered with the configured preference and consent, once; the refund closes it")
  func refundRequestAnswered() async throws {
    let harness = try await Harness(appStore: Self.answering)
    defer { harness.stop() }
    let id = try await harness.server.createProfile()
    let bought = F.transaction("7000", original: "7000", purchased: 0, expires: 30, token: id)
    try await harness.notification(
      F.notification("SUBSCRIBED", subtype: "INITIAL_BUY", signed: 0, transaction: bought), day: 0, delivered: true)
    harness.server.time.advance(days: 2)
    try await Self.refundRequest(harness, bought, day: 2)
    await Self.answer(harness)
    let answers = harness.apple.consumptionAnswers
    #expect(answers.count == 1)
    let body = try #require(answers.first)
    #expect(body.transactionId == "7000")
    #expect(body.body["customerConsented"] as? Bool == true)
    #expect(body.body["refundPreference"] as? String == "DECLINE")
    #expect(body.body["deliveryStatus"] as? String == "DELIVERED")
    #expect(body.body["sampleContentProvided"] as? Bool == false)
    #expect(body.body["consumptionPercentage"] == nil, "never for an auto-renewable subscription")
    var report = try await Self.report(harness)
    #expect(report.totals.requests == 1 && report.totals.answered == 1 && report.totals.open == 1)
    #expect(report.byReason.first?.key == "UNINTENDED_PURCHASE")
    #expect(report.byProduct.first?.key == "pro_monthly")
    #expect(report.requests.first?.owners == [id])
    // Another pass sends nothing again.
    await harness.server.server.service.refundAnswers.processDue()
    #expect(harness.apple.consumptionAnswers.count == 1)
    // Apple refunds: the request closes, and premium is gone.
    let refunded = F.transaction(
      "7000", original: "7000", purchased: 0, expires: 30, signed: 2.5, revoked: 2.5, token: id)
    try await harness.notification(
      F.notification("REFUND", signed: 2.5, transaction: refunded), day: 2.5, delivered: true)
    report = try await Self.report(harness)
    #expect(report.totals.refunded == 1 && report.totals.open == 0)
    #expect(try await harness.profile(id).accessLevels["premium"]?.isActive == false)
    // The profile's timeline holds the request with what was answered.
    let activity = try await harness.server.admin("GET", "/v1/admin/profiles/\(id)/activity")
    let requests = try #require(activity.json?.objectValue?["refund_requests"]?.arrayValue)
    #expect(requests.first?.objectValue?["outcome"] == .string("refunded"))
    #expect(
      requests.first?.objectValue?["answer"]?.objectValue?["refundPreference"] == .string("DECLINE"))
    let notifications = try #require(activity.json?.objectValue?["notifications"]?.arrayValue)
    #expect(
      notifications.map { $0.objectValue?["type"] } == [
        .string("SUBSCRIBED"), .string("CONSUMPTION_REQUEST"), .string("REFUND"),
      ])
  }

  @Test("without the customer's consent, or when not configured, nothing is sent; the request is kept and says why")
  func refundRequestNeverWithoutConsent() async throws {
    let harness = try await Harness(appStore: [
      "refund_requests": ["answer": true, "customer_consent": false, "preference": "grant_full"]
    ])
    defer { harness.stop() }
    let id = try await harness.server.createProfile()
    let bought = F.transaction("7100", original: "7100", purchased: 0, expires: 30, token: id)
    try await harness.notification(
      F.notification("SUBSCRIBED", subtype: "INITIAL_BUY", signed: 0, transaction: bought), day: 0, delivered: true)
    harness.server.time.advance(days: 0.5)
    try await Self.refundRequest(harness, bought, day: 0.5, reason: "OTHER")
    await Self.answer(harness)
    #expect(harness.apple.consumptionAnswers.isEmpty)
    let report = try await Self.report(harness)
    #expect(report.totals.notSent == 1 && report.totals.answered == 0)
    #expect(report.requests.first?.lastError == "no_consent")
    // Apple declines it: closed as declined.
    harness.server.time.advance(days: 0.5)
    try await harness.notification(
      F.notification("REFUND_DECLINED", signed: 1, transaction: bought), day: 1, delivered: true)
    #expect(try await Self.report(harness).totals.declined == 1)
    // The configuration refuses a preference Apple does not know.
    var document =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
      as! [String: Any]
    document["app_store"] = [
      "bundle_id": F.bundleId, "refund_requests": ["answer": true, "customer_consent": true, "preference": "maybe"],
    ]
    let refused = try await harness.server.admin(
      "PUT", "/v1/admin/config",
      json: String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
    #expect(refused.status == 422)
    #expect(String(decoding: refused.body, as: UTF8.self).contains("$.app_store.refund_requests.preference"))
  }

  @Test("Apple's faults are retried within the 12 hours; past them the request expires unanswered")
  func refundRequestFaults() async throws {
    let harness = try await Harness(appStore: Self.answering)
    defer { harness.stop() }
    let id = try await harness.server.createProfile()
    harness.server.time.advance(days: 0.001)
    // A consumable no profile owns (bought on a device that never ran Tollgate).
    let coins = F.transaction(
      "7200", original: "7200", product: "coins_100", purchased: 0, type: TransactionPayload.consumable)
    harness.apple.fail(next: 1, status: 503)
    try await Self.refundRequest(harness, coins, day: 0)
    await Self.answer(harness)
    #expect(harness.apple.consumptionAnswers.isEmpty)
    var request = try #require(try await Self.report(harness).requests.first)
    #expect(request.status == "pending" && request.lastError?.contains("503") == true, "\(request)")
    // 429: Apple's Retry-After (milliseconds) is waited for.
    harness.server.time.advance(days: 0.01)
    let until = Int64((harness.server.time.now().timeIntervalSince1970 + 600) * 1000)
    harness.apple.fail(next: 1, status: 429, retryAfterMs: until)
    await Self.answer(harness)
    await harness.server.server.service.refundAnswers.processDue()
    #expect(harness.apple.consumptionAnswers.isEmpty, "not before Retry-After")
    harness.server.time.advance(days: 0.01)
    await harness.server.server.service.refundAnswers.processDue()
    let answers = harness.apple.consumptionAnswers
    #expect(answers.count == 1)
    // A consumable nobody owns: not delivered, so 0 % consumed, as Apple requires.
    #expect(answers.first?.body["deliveryStatus"] as? String == "UNDELIVERED_OTHER")
    #expect(answers.first?.body["consumptionPercentage"] as? Int == 0)
    // A second request Apple keeps failing expires after 12 hours.
    let other = F.transaction(
      "7201", original: "7201", product: "coins_100", purchased: 0.01, type: TransactionPayload.consumable, token: id)
    harness.apple.fail(next: 100, status: 500)
    try await Self.refundRequest(harness, other, day: 0.02)
    await Self.answer(harness)
    harness.server.time.advance(days: 0.6)
    await harness.server.server.service.refundAnswers.processDue()
    request = try #require(try await Self.report(harness).requests.first { $0.transactionId == "7201" })
    #expect(request.status == "expired", "\(request)")
  }

  @Test("a customer's whole history is pulled from Apple, every page, recorded once; faults and bad input answered")
  func historyRefresh() async throws {
    let harness = try await Harness()
    defer { harness.stop() }
    let id = try await harness.server.createProfile()
    let bought = F.transaction("8000", original: "8000", purchased: 0, expires: 30, token: id)
    try await harness.notification(
      F.notification("SUBSCRIBED", subtype: "INITIAL_BUY", signed: 0, transaction: bought), day: 0, delivered: true)
    // Apple has two renewals nobody was told of (three transactions: two pages of two).
    let renewals = [
      F.transaction("8001", original: "8000", purchased: 30, expires: 60, token: id),
      F.transaction("8002", original: "8000", purchased: 60, expires: 90, token: id),
    ]
    harness.apple.history(
      try ([bought] + renewals).map { try harness.signer.sign(json: F.object($0)) }, for: ["8000", "8001", "8002"])
    harness.server.time.advance(days: 61)
    #expect(try await harness.profile(id).accessLevels["premium"]?.isActive == false)
    let answer = try await harness.server.admin("POST", "/v1/admin/profiles/\(id)/app-store/refresh")
    #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
    let refresh = try answer.decode(HistoryRefresh.self)
    #expect(refresh.status == "done" && refresh.transactions == 3 && refresh.changed == 2 && refresh.refused == 0)
    #expect(refresh.revisions == ["Sandbox": "rev-3"])
    let profile = try await harness.profile(id)
    #expect(profile.accessLevels["premium"]?.isActive == true)
    #expect(profile.subscriptions["pro_monthly"]?.vendorTransactionId == "8002")
    // Again: nothing changes.
    let again = try await harness.server.admin("POST", "/v1/admin/profiles/\(id)/app-store/refresh")
    #expect(try again.decode(HistoryRefresh.self).changed == 0)
    // Bad input and faults.
    #expect(
      try await harness.server.admin("POST", "/v1/admin/profiles/nobody/app-store/refresh").errorCode
        == "profile_not_found")
    let empty = try await harness.server.createProfile()
    let none = try await harness.server.admin("POST", "/v1/admin/profiles/\(empty)/app-store/refresh")
    #expect(none.status == 409 && none.errorCode == "no_app_store_transactions")
    harness.apple.fail(status: 401)
    let refused = try await harness.server.admin("POST", "/v1/admin/profiles/\(id)/app-store/refresh")
    #expect(refused.status == 502 && refused.errorCode == "app_store_api_failed")
    let kept = try #require(
      try harness.server.server.store.database.historyRefresh(appId: harness.server.alpha.app.id, profileId: id))
    #expect(kept.status == "failed" && kept.error?.contains("401") == true)
    // The command line's request: a running server's pass does it.
    let service = AppStoreServerService(
      database: harness.server.server.store.database, secrets: nil, time: harness.server.time)
    #expect(
      try service.requestHistoryRefresh(appId: harness.server.alpha.app.id, profileId: id, by: "cli").status
        == "requested")
    await harness.recover()
    let done = try #require(try service.historyRefresh(appId: harness.server.alpha.app.id, profileId: id))
    #expect(done.status == "done" && done.transactions == 3, "\(done)")
  }

  @Test("an access level given by hand unlocks at once, ends when it expires or is revoked; audited, webhooks told")
  func grants() async throws {
    let harness = try await Harness(webhook: "http://127.0.0.1:9/hooks")
    defer { harness.stop() }
    let id = try await harness.server.createProfile()
    let path = "/v1/admin/profiles/\(id)/access-levels/premium"
    let expires = Timestamp.string(harness.server.time.now().addingTimeInterval(2 * 86_400))
    let granted = try await harness.server.admin(
      "POST", path + "/grant", json: #"{"expires_at": "\#(expires)", "reason": "support ticket 4411"}"#)
    #expect(granted.status == 200, "\(String(decoding: granted.body, as: UTF8.self))")
    let answer = try granted.decode(AccessGrantAnswer.self)
    #expect(answer.grants.first?.isActive == true && answer.grants.first?.isLifetime == false)
    let level = try #require(try await harness.profile(id).accessLevels["premium"])
    #expect(level.isActive && level.store == "promotional" && level.expiresAt == expires)
    // It lapses by the clock.
    harness.server.time.advance(days: 3)
    #expect(try await harness.profile(id).accessLevels["premium"]?.isActive == false)
    // For life, then taken back.
    let lifetime = try await harness.server.admin(
      "POST", path + "/grant", json: #"{"lifetime": true, "reason": "press"}"#)
    #expect(lifetime.status == 200)
    #expect(try await harness.profile(id).accessLevels["premium"]?.isLifetime == true)
    let revoked = try await harness.server.admin("POST", path + "/revoke")
    #expect(revoked.status == 200)
    #expect(try revoked.decode(AccessGrantAnswer.self).grants.count == 1)
    #expect(try await harness.profile(id).accessLevels["premium"]?.isActive == false)
    #expect(try await harness.server.admin("POST", path + "/revoke").errorCode == "grant_not_found")
    // Bad input.
    #expect(
      try await harness.server.admin(
        "POST", "/v1/admin/profiles/\(id)/access-levels/gold/grant", json: #"{"lifetime": true, "reason": "x"}"#
      ).errorCode == "access_level_not_found")
    #expect(
      try await harness.server.admin(
        "POST", "/v1/admin/profiles/nobody/access-levels/premium/grant", json: #"{"lifetime": true, "reason": "x"}"#
      ).errorCode == "profile_not_found")
    let invalid = try await harness.server.admin(
      "POST", path + "/grant", json: #"{"expires_at": "2001-01-01T00:00:00Z", "lifetime": true}"#)
    #expect(invalid.status == 422)
    let text = String(decoding: invalid.body, as: UTF8.self)
    #expect(text.contains("$.reason") && text.contains("$.expires_at"))
    // Audited; the webhook's outbox holds the grants and the revocation.
    let audit = try await harness.server.admin("GET", "/v1/admin/audit")
    let actions = String(decoding: audit.body, as: UTF8.self)
    #expect(actions.contains("access_level.granted") && actions.contains("access_level.revoked"))
    let deliveries = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries")
    let types = (deliveries.json?.objectValue?["deliveries"]?.arrayValue ?? []).compactMap {
      $0.objectValue?["event_type"]?.stringValue
    }
    #expect(
      types.filter { $0 == "access_level.granted" }.count == 2 && types.contains("access_level.revoked"), "\(types)")
    // The timeline lists both grants.
    let activity = try await harness.server.admin("GET", "/v1/admin/profiles/\(id)/activity")
    #expect(activity.json?.objectValue?["grants"]?.arrayValue?.count == 2)
  }
}
