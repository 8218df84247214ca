import Dispatch
import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// A server whose Campaign Management API is the stand-in, sharing the test's clock.
struct SpendHarness {
  let time: ManualTime
  let standIn: AppleAdsCampaignSandbox
  let server: TestServer
  let key: ECKey
  let client: AppleAdsCampaignSandbox.Client
  /// The stand-in's base URL.
  let base: URL

  init(policy: SpendImportPolicy = SpendImportPolicy(), currency: String = "USD", store: (any Database)? = nil) throws {
    let time = ManualTime()
    self.time = time
    standIn = AppleAdsCampaignSandbox(clock: { time.now() })
    base = try standIn.start()
    key = try ECKey.generateP256()
    client = AppleAdsCampaignSandbox.Client(
      clientId: "SEARCHADS.test-client", teamId: "SEARCHADS.test-team", keyId: "test-key-1",
      publicKeyPEM: key.publicPEM, orgId: 40_669_820, currency: currency)
    standIn.register(client)
    server = try TestServer(
      time: time, store: store.map { OpenedStore($0) }, campaignAPI: base, spendImportPolicy: policy)
  }

  func stop() {
    server.stop()
    standIn.stop()
  }

  var appId: Int64 { get throws { try server.server.store.database.app(named: "alpha")!.id } }
  var today: Int64 { StatsDay.of(time.now()) }

  /// The sample configuration plus `apple_ads_api` (and `extra` top-level keys).
  func configure(_ extra: [String: Any] = [:], apiSettings: [String: Any]? = nil) async throws -> HTTPResult {
    let sample = try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    var document = try JSONSerialization.jsonObject(with: sample) as! [String: Any]
    document["apple_ads_api"] =
      apiSettings ?? [
        "org_id": client.orgId, "client_id": client.clientId, "team_id": client.teamId, "key_id": client.keyId,
      ]
    for (name, value) in extra { document[name] = value }
    let body = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
    return try await server.admin("PUT", "/v1/admin/config", json: body)
  }

  func upload(_ pem: String? = nil) async throws -> HTTPResult {
    let body = String(
      decoding: try JSONSerialization.data(withJSONObject: ["private_key": pem ?? key.privatePEM]), as: UTF8.self)
    return try await server.admin("POST", "/v1/admin/apple-ads/credentials", json: body)
  }

  /// Lets a pass a route started finish, then runs the importer until nothing is due.
  func importPass() async {
    let importer = server.server.service.spendImporter
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        importer.waitUntilIdle()
        continuation.resume()
      }
    }
    while await importer.processDue() > 0 {}
  }

  func status() async throws -> AppleAdsStatus {
    try await server.admin("GET", "/v1/admin/apple-ads/status").decode(AppleAdsStatus.self)
  }

  /// What Tollgate stored over the backfill's days, in a stable order.
  func stored() throws -> [SpendFigure] {
    try server.server.store.database.spendFigures(appId: appId, days: (today - 120)...today).sorted(by: Self.order)
  }

  /// What Apple Ads says, rows of inactive days left out as the importer does.
  func truth(days: Int64 = 90) -> [SpendFigure] {
    standIn.truth(client, days: (today - days + 1)...today).filter { $0.spend != 0 || $0.totalInstalls != 0 }
      .sorted(by: Self.order)
  }

  static func order(_ left: SpendFigure, _ right: SpendFigure) -> Bool {
    (left.level.rawValue, left.day, left.campaignId, left.adGroupId, left.keywordId)
      < (right.level.rawValue, right.day, right.campaignId, right.adGroupId, right.keywordId)
  }
}

@Suite("Apple Ads spend")
struct AppleAdsSpendTests {
  @Test("the client secret is an ES256 JWT the stand-in verifies with the public key; tampering is refused")
  func clientSecret() throws {
    let key = try ECKey.generateP256()
    let settings = AppleAdsAPISettings(orgId: 1, clientId: "SEARCHADS.c", teamId: "SEARCHADS.t", keyId: "k1")
    let client = AppleAdsCampaignSandbox.Client(
      clientId: "SEARCHADS.c", teamId: "SEARCHADS.t", keyId: "k1", publicKeyPEM: key.publicPEM, orgId: 1,
      currency: "USD")
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let secret = try ClientSecret.make(settings: settings, key: key, now: now)
    let jws = try #require(CompactJWS(secret.token))
    let header = try JSONSerialization.jsonObject(with: jws.header) as! [String: Any]
    let claims = try JSONSerialization.jsonObject(with: jws.payload) as! [String: Any]
    #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "k1")
    #expect(claims["sub"] as? String == "SEARCHADS.c" && claims["iss"] as? String == "SEARCHADS.t")
    #expect(claims["aud"] as? String == "https://appleid.apple.com")
    #expect((claims["exp"] as! NSNumber).int64Value - (claims["iat"] as! NSNumber).int64Value == 180 * 86_400)
    #expect(jws.signature.count == 64)
    #expect(AppleAdsCampaignSandbox.verify(secret: secret.token, client: client, now: now))
    // Expired, signed by another key, or with a claim changed after signing: refused.
    #expect(!AppleAdsCampaignSandbox.verify(secret: secret.token, client: client, now: now + 181 * 86_400))
    let other = try ClientSecret.make(settings: settings, key: try ECKey.generateP256(), now: now)
    #expect(!AppleAdsCampaignSandbox.verify(secret: other.token, client: client, now: now))
    let parts = secret.token.split(separator: ".")
    var forged = claims
    forged["sub"] = "SEARCHADS.someone-else"
    let forgedPayload = CompactJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: forged))
    let tampered = "\(parts[0]).\(forgedPayload).\(parts[2])"
    var forgedClient = client
    forgedClient.clientId = "SEARCHADS.someone-else"
    #expect(!AppleAdsCampaignSandbox.verify(secret: tampered, client: forgedClient, now: now))
    #expect(!secret.isFresh(at: now + 179.5 * 86_400) && secret.isFresh(at: now + 100 * 86_400))
  }

  @Test("amounts and days read exactly; a report page decodes ids, names and days")
  func reportPage() throws {
    #expect(MoneyText.thousandths("12.34") == 12_340)
    #expect(MoneyText.thousandths("0.0005") == 1)
    #expect(MoneyText.thousandths("7") == 7_000)
    #expect(MoneyText.thousandths("1e3") == nil && MoneyText.thousandths("12.") == nil)
    #expect(StatsDay.parseISODay("2026-04-31") == nil && StatsDay.parseISODay("2026-11-30") != nil)
    let body = """
      {"data":{"reportingDataResponse":{"row":[{"metadata":{"campaignId":5,"adGroupId":6,"adGroupName":"G",
      "keywordId":7,"keyword":"word"},"granularity":[{"date":"2026-11-29","impressions":10,"taps":2,"tapInstalls":1,
      "totalInstalls":1,"localSpend":{"amount":"1.50","currency":"EUR"}}]}]}},"pagination":{"totalResults":3,
      "startIndex":0,"itemsPerPage":1}}
      """
    let page = try CampaignReportPage.decode(Data(body.utf8), level: .keyword, campaignId: 5)
    #expect(page.totalResults == 3 && page.rowCount == 1)
    #expect(
      page.figures == [
        SpendFigure(
          level: .keyword, day: StatsDay.parseISODay("2026-11-29")!, campaignId: 5, adGroupId: 6, keywordId: 7,
          currency: "EUR", spend: 1_500, impressions: 10, taps: 2, tapInstalls: 1, totalInstalls: 1)
      ])
    #expect(
      Set(page.names) == [
        AdsEntityName(level: .adGroup, id: 6, name: "G"), AdsEntityName(level: .keyword, id: 7, name: "word"),
      ])
    #expect(throws: AppleAdsAPIError.self) { try CampaignReportPage.decode(Data("[]".utf8), level: .campaign) }
  }

  @Test("backfill stores what Apple reports; a later run replaces the revised days, never adds them")
  func backfillAndRevisions() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    #expect(try await harness.configure().status == 200)
    let uploaded = try await harness.upload()
    #expect(uploaded.status == 200)
    let text = String(decoding: uploaded.body, as: UTF8.self)
    #expect(!text.contains("PRIVATE KEY") && !text.contains(String(harness.key.privatePEM.dropFirst(40).prefix(30))))
    await harness.importPass()
    let truth = harness.truth()
    #expect(!truth.isEmpty)
    #expect(try harness.stored() == truth)
    var status = try await harness.status()
    #expect(status.importer?.status == "scheduled" && status.importer?.backfilled == true)
    #expect(status.credentials?.lastUsedAt != nil && status.importer?.lastError == nil)
    #expect(harness.standIn.tokensIssued == 1)
    // Nothing is due before six hours.
    harness.time.advance(days: 0.2)
    await harness.importPass()
    #expect(harness.standIn.tokensIssued == 1)
    // Apple revises the last three days; the next run reads them again and replaces them.
    harness.standIn.revise()
    let revised = harness.truth()
    #expect(revised != truth)
    harness.time.advance(days: 0.1)
    await harness.importPass()
    #expect(try harness.stored() == revised)
    status = try await harness.status()
    #expect(status.importer?.run == nil && status.importer?.backfilled == true)
    // The access token lasts an hour: 7 hours later a new one was fetched, with the same client
    // secret (valid 180 days, kept in memory).
    #expect(harness.standIn.tokensIssued == 2 && harness.standIn.clientSecretsSeen == 1)
    // A day before the secret expires, a new one is signed.
    harness.time.advance(days: 179.2)
    await harness.importPass()
    #expect(harness.standIn.tokensIssued == 3 && harness.standIn.clientSecretsSeen == 2)
    #expect(try await harness.status().importer?.lastError == nil)
  }

  @Test("pages as Apple pages; 429 waits Retry-After, 500 backs off, a 401 gets a new token once")
  func pagingAndFailures() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    harness.standIn.maximumPageSize = 1
    _ = try await harness.configure()
    harness.standIn.fail(next: 1, status: 429, retryAfter: 120)
    _ = try await harness.upload()
    await harness.importPass()
    var status = try await harness.status()
    #expect(status.importer?.status == "scheduled" && status.importer?.lastError?.contains("429") == true)
    #expect(status.importer?.nextRunAt == Timestamp.string(harness.time.now() + 120))
    #expect(try harness.stored().isEmpty)
    harness.time.advance(days: 121 / 86_400)
    harness.standIn.fail(next: 1, status: 500, after: 3)
    await harness.importPass()
    status = try await harness.status()
    #expect(status.importer?.lastError?.contains("500") == true && status.importer?.attempts == 2)
    // The back-off doubles with each earlier failure: 60 s × 2 after the 429.
    #expect(status.importer?.nextRunAt == Timestamp.string(harness.time.now() + 120))
    harness.time.advance(days: 121 / 86_400)
    harness.standIn.expireTokens()
    let tokens = harness.standIn.tokensIssued
    await harness.importPass()
    #expect(harness.standIn.tokensIssued == tokens + 1)
    status = try await harness.status()
    #expect(status.importer?.lastError == nil && status.importer?.backfilled == true)
    #expect(try harness.stored() == harness.truth())
    // One row per page: every row of every report was a call of its own.
    #expect(harness.standIn.reportCalls.count > 20)
  }

  @Test("a run cut between windows resumes at its cursor: no day missing, none counted twice")
  func resumeAtCursor() async throws {
    var policy = SpendImportPolicy()
    policy.windowDays = 10
    let harness = try SpendHarness(policy: policy)
    defer { harness.stop() }
    _ = try await harness.configure()
    // Each 10-day window is 5 calls (campaigns, then ad groups and keywords of 2 campaigns):
    // the 23rd call fails inside the fifth window.
    harness.standIn.fail(next: 1, status: 503, after: 22)
    _ = try await harness.upload()
    await harness.importPass()
    let status = try await harness.status()
    let first = harness.today - 89
    #expect(status.importer?.run?.nextDay == StatsDay.isoDay(first + 40))
    let partial = try harness.stored()
    #expect(Set(partial.map(\.day)) == Set((first..<(first + 40)).filter { day in partial.contains { $0.day == day } }))
    #expect(partial == harness.truth().filter { $0.day < first + 40 })
    harness.time.advance(days: 61 / 86_400)
    await harness.importPass()
    #expect(try harness.stored() == harness.truth())
    #expect(try await harness.status().importer?.run == nil)
  }

  @Test("one instance imports an app at a time: the lease keeps others off, a stale owner writes nothing")
  func leases() throws {
    let store = try SQLiteStore(path: temporaryDirectory().appendingPathComponent("t.sqlite").path)
    defer { store.close() }
    let app = try store.createApp(name: "a")
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    try store.saveAdsCredentials(appId: app.id, sealedKey: "x", keyFingerprint: "f", at: now)
    let first = try store.claimSpendImport(now: now, leaseUntil: now + 90, owner: "A")
    #expect(first?.appId == app.id)
    #expect(try store.claimSpendImport(now: now + 10, leaseUntil: now + 100, owner: "B") == nil)
    #expect(try store.beginSpendImportRun(appId: app.id, owner: "A", days: 100...109, at: now))
    let figure = SpendFigure(level: .campaign, day: 100, campaignId: 1, currency: "USD", spend: 1_000)
    // A's lease ran out and B took the job over: A's window is refused, B's is stored.
    let second = try store.claimSpendImport(now: now + 91, leaseUntil: now + 181, owner: "B")
    #expect(second?.cursorDay == 100)
    #expect(
      try !store.storeSpendWindow(
        appId: app.id, owner: "A", days: 100...104, figures: [figure], names: [], skipped: [], leaseUntil: now + 200,
        at: now))
    #expect(
      try store.storeSpendWindow(
        appId: app.id, owner: "B", days: 100...104, figures: [figure], names: [], skipped: [], leaseUntil: now + 200,
        at: now))
    #expect(try store.spendFigures(appId: app.id, days: 0...200) == [figure])
  }

  @Test("invalid credentials stop the import with a visible status and an apple_ads.import_failed event")
  func invalidCredentials() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    let receiver = try WebhookReceiver()
    defer { receiver.stop() }
    _ = try await harness.configure([
      "webhooks": [["id": "ops", "url": receiver.url, "events": ["apple_ads.import_failed"]]]
    ])
    // A key Apple Ads does not know.
    #expect(try await harness.upload(try ECKey.generateP256().privatePEM).status == 200)
    await harness.importPass()
    var status = try await harness.status()
    #expect(status.importer?.status == "failed" && status.importer?.failure == "credentials")
    #expect(status.importer?.lastError?.contains("invalid_client") == true && status.importer?.nextRunAt == nil)
    let deliveries = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries").decode(
      DeliveriesPayload.self)
    #expect(deliveries.deliveries.map(\.eventType) == ["apple_ads.import_failed"])
    // Stopped stays stopped, whatever the clock says…
    harness.time.advance(days: 2)
    await harness.importPass()
    #expect(try await harness.status().importer?.status == "failed")
    // …until the right key is uploaded.
    #expect(try await harness.upload().status == 200)
    await harness.importPass()
    status = try await harness.status()
    #expect(status.importer?.status == "scheduled" && status.importer?.failure == nil)
    #expect(try harness.stored() == harness.truth())
  }

  @Test("credentials: refused before apple_ads_api is configured, refused when not a P-256 key; config validated")
  func refusals() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    #expect(try await harness.upload().errorCode == "apple_ads_not_configured")
    let bad = try await harness.configure(apiSettings: [
      "org_id": "x", "client_id": "", "team_id": "t", "key_id": "k", "refresh_days": 99, "other": 1,
    ])
    #expect(bad.status == 422)
    #expect(
      Set(bad.errorPaths) == [
        "$.apple_ads_api.org_id", "$.apple_ads_api.client_id", "$.apple_ads_api.refresh_days", "$.apple_ads_api.other",
      ])
    _ = try await harness.configure()
    let notAKey = try await harness.upload("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
    #expect(notAKey.status == 422 && notAKey.errorCode == "invalid_private_key")
    // A key under a passphrase: said so, with the command that decrypts it.
    let encrypted = try await harness.upload(Self.encryptedKey)
    #expect(encrypted.status == 422 && encrypted.errorCode == "invalid_private_key")
    #expect(encrypted.errorMessage?.contains("encrypted with a passphrase") == true)
    #expect(encrypted.errorMessage?.contains("openssl pkey") == true)
    #expect(try await harness.server.admin("POST", "/v1/admin/apple-ads/import").errorCode == "credentials_not_found")
    let status = try await harness.status()
    #expect(status.configured && status.credentials == nil && status.importer == nil)
  }

  /// A P-256 key under the passphrase "secret" (`openssl pkcs8 -topk8 -v2 aes-256-cbc`).
  static let encryptedKey = """
    -----BEGIN ENCRYPTED PRIVATE KEY-----
    MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhOt5Dw+IyBYgICCAAw
    DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEECBwHjmw9GoBKHE8OaXW+5UEgZCw
    oPGGjCz27uwiCmEo9IwN/G1FSpWHbaK5vtMR6XyjzhOVcM4Q1xGwM9lOy4D5HXmy
    UYmEWeTaBdGxEyi3lgquJrvYeT0MsLl4zHFVXQ88sNjl/e/z7mvQf0bQdvsepVIy
    4HPF+8hxGkIX++o3PyBJfQtFcjb74gQn4nN6+MyxD5X9v7o5n1EiIEOqLFyJyJE=
    -----END ENCRYPTED PRIVATE KEY-----
    """

  @Test("a keyword row without keywordId is left out and counted; every other row is imported")
  func unreadableRows() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    harness.standIn.searchMatchKeywordRows = true
    _ = try await harness.configure()
    _ = try await harness.upload()
    await harness.importPass()
    let status = try #require(try await harness.status().importer)
    #expect(status.status == "scheduled" && status.backfilled && status.lastError == nil && status.failure == nil)
    #expect(status.rowsSkipped > 0)
    #expect(status.lastSkipped?.contains("no keywordId") == true)
    let stored = try harness.stored()
    #expect(stored == harness.truth(), "campaigns, ad groups and the other keywords all imported")
    #expect(stored.contains { $0.level == .campaign } && stored.contains { $0.level == .keyword })
  }

  @Test("each job wakes the importer at its own due time: Retry-After 3 s is 3 s, a back-off 60 s, a run 6 h")
  func wakesAtDueTime() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    _ = try await harness.configure()
    harness.standIn.fail(next: 1, status: 429, retryAfter: 3)
    _ = try await harness.upload()
    await harness.importPass()
    let importer = harness.server.server.service.spendImporter
    #expect(importer.nextWake == harness.time.now() + 3)
    #expect(try await harness.status().importer?.nextRunAt == Timestamp.string(harness.time.now() + 3))
    harness.time.advance(days: 3 / 86_400)
    harness.standIn.fail(next: 1, status: 500)
    await harness.importPass()
    #expect(importer.nextWake == harness.time.now() + 120, "the second failure in a row: 60 s doubled")
    harness.time.advance(days: 120 / 86_400)
    await harness.importPass()
    #expect(importer.nextWake == harness.time.now() + 6 * 3_600)
    #expect(try await harness.status().importer?.attempts == 0)
    // After a success the back-off starts again at 60 s.
    harness.time.advance(days: 0.25)
    harness.standIn.fail(next: 1, status: 500)
    await harness.importPass()
    #expect(importer.nextWake == harness.time.now() + 60)
  }

  @Test("a held lease nobody renews reads as interrupted, with when the run resumes")
  func interruptedStatus() {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    var job = SpendImportJob(
      appId: 1, status: .scheduled, nextRunAt: now - 100, leaseOwner: "A", leaseUntil: now + 60, runFirstDay: 1,
      runLastDay: 90, cursorDay: 31, backfilled: false, attempts: 0, rowsImported: 10, leaseRenewedAt: now - 30)
    #expect(AppleAdsSpendService.state(of: job, now: now, lease: 90) == ("running", nil))
    job.leaseRenewedAt = now - 50
    job.leaseUntil = now + 40
    #expect(AppleAdsSpendService.state(of: job, now: now, lease: 90) == ("interrupted", now + 40))
    job.leaseUntil = now - 1
    #expect(AppleAdsSpendService.state(of: job, now: now, lease: 90) == ("scheduled", nil))
    job.status = .failed
    #expect(AppleAdsSpendService.state(of: job, now: now, lease: 90) == ("failed", nil))
  }

  @Test("the passes wake at a planned time, long before their next tick")
  func passesWake() async throws {
    let passes = BackgroundPasses()
    let ran = Mutex(0)
    passes.bind {
      ran.withLock { $0 += 1 }
      return 0
    }
    passes.wake(after: 0)
    passes.waitUntilIdle(timeout: 1)
    #expect(ran.withLock { $0 } == 0, "not started: no wake")
    passes.start(interval: 3_600)
    defer { passes.stop() }
    passes.wake(after: 0.01)
    let started = Date()
    while ran.withLock({ $0 }) == 0, Date().timeIntervalSince(started) < 30 {
      try await Task.sleep(for: .milliseconds(5))
    }
    #expect(ran.withLock { $0 } == 1)
  }

  @Test("the report joins names and spend with attributed installs; keywords' spend sums to the ad group's")
  func reportFromImport() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    _ = try await harness.configure()
    _ = try await harness.upload()
    await harness.importPass()
    let days = (harness.today - 29)...harness.today
    let truth = harness.standIn.truth(harness.client, days: days)
    let report = try await harness.server.admin("GET", "/v1/admin/stats/apple-ads?by=keyword")
      .decode(AppleAdsReport.self)
    #expect(report.currency == "USD")
    for figure in truth where figure.level == .keyword {
      let row = try #require(report.rows.first { $0.keywordId == figure.keywordId })
      #expect(row.keyword != nil && row.campaignName != nil && row.adGroupName != nil)
      let expected = truth.filter { $0.level == .keyword && $0.keywordId == figure.keywordId }
      let spend = expected.reduce(0) { $0 + $1.spend }
      #expect(row.spend?.total == Money(thousandths: spend, currency: "USD"))
      let installs = expected.reduce(0) { $0 + $1.tapInstalls }
      #expect(row.spend?.appleInstalls == installs && row.spend?.installGap == installs)
      #expect(row.spend?.cpi == Money(Decimal(spend) / 1000 / Decimal(installs), currency: "USD"))
      #expect(row.spend?.roas == 0 && row.spend?.paybackDay == nil)
    }
    // Search match: the brand discovery ad group's spend has no keyword.
    let searchMatch = try #require(report.rows.first { $0.adGroupId == 542_370_601 && $0.keywordId == 0 })
    let expected = truth.filter { $0.level == .adGroup && $0.adGroupId == 542_370_601 }.reduce(0) { $0 + $1.spend }
    #expect(searchMatch.spend?.total == Money(thousandths: expected, currency: "USD"))
    let byCampaign = try await harness.server.admin("GET", "/v1/admin/stats/apple-ads?by=campaign")
      .decode(AppleAdsReport.self)
    let keywordSum = report.rows.compactMap { $0.spend?.total?.amount }.reduce(0, +)
    let campaignSum = byCampaign.rows.compactMap { $0.spend?.total?.amount }.reduce(0, +)
    #expect(keywordSum == campaignSum && campaignSum > 0)
  }

  @Test("spend files: rows upserted by day and entity, twice the same file changes nothing, bad rows named")
  func spendFile() async throws {
    let harness = try SpendHarness()
    defer { harness.stop() }
    let service = AppleAdsSpendService(database: harness.server.server.store.database, secrets: nil, time: harness.time)
    let csv = """
      Day,Campaign ID,Campaign Name,Ad Group ID,Ad Group Name,Keyword ID,Keyword,Spend,Currency,Installs
      2026-10-01,11,"Brand, US",12,Exact,13,tollgate,12.50,USD,3
      2026-10-01,11,"Brand, US",12,Exact,,,20.00,USD,5
      2026-10-02,21,Generic,,,,,"1,000.10",EUR,40

      """
    let appId = try harness.appId
    let summary = try service.importFile(appId: appId, data: Data(csv.utf8), by: "test")
    #expect(summary.rows == 3 && summary.currencies == ["EUR", "USD"])
    _ = try service.importFile(appId: appId, data: Data(csv.utf8), by: "test")
    let day = StatsDay.parseISODay("2026-10-01")!
    let stored = try harness.server.server.store.database.spendFigures(appId: appId, days: day...(day + 1))
    #expect(stored.count == 3)
    #expect(stored.contains { $0.level == .campaign && $0.campaignId == 21 && $0.spend == 1_000_100 })
    let names = try harness.server.server.store.database.adsEntityNames(appId: appId)
    #expect(names.contains(AdsEntityName(level: .campaign, id: 11, name: "Brand, US")))
    // Apple renamed the keyword: still one keyword, under its new text.
    let renamed = csv.replacingOccurrences(of: ",tollgate,", with: ",tollgate paywall,")
    _ = try service.importFile(appId: appId, data: Data(renamed.utf8), by: "test")
    let keywords = try harness.server.server.store.database.adsEntityNames(appId: appId).filter { $0.level == .keyword }
    #expect(keywords == [AdsEntityName(level: .keyword, id: 13, name: "tollgate paywall")])
    #expect(try harness.server.server.store.database.spendFigures(appId: appId, days: day...(day + 1)).count == 3)
    // A campaign total summed from the ad group when the file has no campaign row.
    let ledger = SpendLedger(stored, by: .campaign)
    #expect(ledger.totals(.init(campaignId: 11)).spend == ["USD": 20_000])
    let bad = "day,campaign_id,spend,currency\n2026-13-01,1,1.00,USD\n2026-10-01,x,1.00,USD\n2026-10-01,1,abc,usdd\n"
    do {
      _ = try service.importFile(appId: appId, data: Data(bad.utf8), by: "test")
      Issue.record("a bad file was imported")
    } catch let error as DomainError {
      #expect(error.code == .invalidSpendFile && error.details?.map(\.path) == ["line 2", "line 3", "line 4"])
    }
  }
}
