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

/// An existing app's users brought onto Tollgate: profiles with their install dates and
/// attribution from NDJSON, their App Store histories from (a stand-in of) Apple.
@Suite("Profile import")
struct ProfileImportTests {
  typealias F = StoreKitFixtures
  typealias Harness = NotificationRecoveryTests.Harness

  static func iso(_ day: Double) -> String { Timestamp.string(F.date(day)) }
  static func day(_ day: Double) -> String { PlacementReport.isoDay(StatsDay.of(milliseconds: F.milliseconds(day))) }

  static func post(_ server: TestServer, _ lines: [String], contentType: String = "application/x-ndjson") async throws
    -> HTTPResult
  {
    try await server.send(
      "POST", "/v1/admin/imports", key: server.alpha.secretKey, scheme: "Bearer",
      body: Data((lines.joined(separator: "\n") + "\n").utf8), contentType: contentType)
  }

  /// The purchases of the scenario: A pays monthly on day 1 (renewed on day 31); B starts a
  /// trial on day 4 that lapses.
  static let a = "6f9619ff-8b86-d011-b42d-00c04fc964f1"
  static let b = "6f9619ff-8b86-d011-b42d-00c04fc964f2"
  static let aPurchases = [
    F.transaction("100", original: "100", purchased: 1, expires: 31),
    F.transaction("101", original: "100", purchased: 31, expires: 61, reason: "RENEWAL"),
  ]
  static let bPurchases = [
    F.transaction("200", original: "200", purchased: 4, expires: 11, offerType: 1, discount: "FREE_TRIAL", price: 0)
  ]

  static func reports(_ server: TestServer) async throws -> (JSONValue?, JSONValue?) {
    let range = "environment=sandbox&from=\(day(0))&to=\(day(39))"
    let cohorts = try await server.admin("GET", "/v1/admin/stats/cohorts?by=day&\(range)")
    let subscriptions = try await server.admin("GET", "/v1/admin/stats/subscriptions?by=day&\(range)")
    #expect(cohorts.status == 200 && subscriptions.status == 200)
    return (cohorts.json, subscriptions.json)
  }

  @Test(
    "imported profiles and their histories from Apple give the cohort and subscription reports the same facts delivered live give",
    arguments: StoreFactory.available)
  func importEqualsLive(engine: StoreFactory) async throws {
    // Live: the profiles are created on their install days and the SDK sends each purchase then.
    let live = try await Harness(engine: engine)
    defer { live.stop() }
    func create(_ id: String) async throws {
      #expect(try await live.server.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(id)"}"#).status == 201)
    }
    func buy(_ transaction: TransactionPayload, _ profile: String) async throws {
      let body = WireCoding.encode(
        TransactionRequest(signedTransaction: try live.signer.sign(json: F.object(transaction))))
      let answer = try await live.server.send(
        "POST", "/v1/sdk/profiles/\(profile)/transactions", key: live.server.alpha.publicKey, body: body)
      #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
    }
    try await create(Self.a)
    live.server.time.advance(days: 1)
    try await buy(Self.aPurchases[0], Self.a)
    live.server.time.advance(days: 2)
    try await create(Self.b)
    live.server.time.advance(days: 1)
    try await buy(Self.bPurchases[0], Self.b)
    live.server.time.advance(days: 27)
    try await buy(Self.aPurchases[1], Self.a)
    live.server.time.advance(days: 9)

    // Imported: on day 40 the same customers arrive from a file; Apple answers their histories.
    let imported = try await Harness(engine: engine)
    defer { imported.stop() }
    imported.server.time.advance(days: 40)
    imported.apple.history(
      try Self.aPurchases.map { try imported.signer.sign(json: F.object($0)) }, for: ["100", "101"])
    imported.apple.history(try Self.bPurchases.map { try imported.signer.sign(json: F.object($0)) }, for: ["200"])
    let answer = try await Self.post(
      imported.server,
      [
        #"{"profile_id":"\#(Self.a)","installed_at":"\#(Self.iso(0))","transaction_ids":["101"],"environment":"Sandbox"}"#,
        #"{"profile_id":"\#(Self.b)","installed_at":"\#(Self.iso(3))","transaction_ids":["200"],"environment":"Sandbox"}"#,
      ])
    #expect(answer.status == 201, "\(String(decoding: answer.body, as: UTF8.self))")
    let summary = try answer.decode(ProfileImportSummary.self)
    #expect(summary.imported == 2 && summary.histories == 2 && summary.refused == 0)
    let importer = imported.server.server.service.historyImporter
    importer.waitUntilIdle()
    await importer.processDue()
    let status = try await imported.server.admin("GET", "/v1/admin/history-import").decode(HistoryImportStatus.self)
    #expect(status.customers == 2 && status.done == 2 && status.transactions == 3 && status.pending == 0, "\(status)")
    let a = try await imported.profile(Self.a)
    #expect(a.accessLevels["premium"]?.isActive == true && a.subscriptions["pro_monthly"]?.vendorTransactionId == "101")

    let (liveCohorts, liveSeries) = try await Self.reports(live.server)
    let (importedCohorts, importedSeries) = try await Self.reports(imported.server)
    #expect(importedCohorts == liveCohorts)
    #expect(importedSeries == liveSeries)
    #expect(liveCohorts?.objectValue?["cohorts"]?.arrayValue?.isEmpty == false, "the scenario has cohorts")
    // Every subscription of the imported server is an imported customer's.
    let range = "environment=sandbox&by=day&from=\(Self.day(0))&to=\(Self.day(39))"
    let onlyImported = try await imported.server.admin("GET", "/v1/admin/stats/subscriptions?origin=import&\(range)")
    #expect(onlyImported.json?.objectValue?["periods"] == importedSeries?.objectValue?["periods"])
    let onlyLive = try await imported.server.admin("GET", "/v1/admin/stats/subscriptions?origin=live&\(range)")
    let liveActives = (onlyLive.json?.objectValue?["periods"]?.arrayValue ?? []).compactMap {
      $0.objectValue?["active_subscriptions"]
    }
    #expect(!liveActives.isEmpty && liveActives.allSatisfy { $0 == .int(0) })
    #expect(
      try await imported.server.admin("GET", "/v1/admin/stats/subscriptions?origin=elsewhere&\(range)").errorCode
        == "bad_parameter")
    // Cohorts kept to one origin: all of this server's are imported, none live.
    let importedCohorts2 = try await imported.server.admin(
      "GET", "/v1/admin/stats/cohorts?origin=import&by=day&\(range)")
    #expect(importedCohorts2.json?.objectValue?["cohorts"] == importedCohorts?.objectValue?["cohorts"])
    let liveCohorts2 = try await imported.server.admin("GET", "/v1/admin/stats/cohorts?origin=live&by=day&\(range)")
    #expect(liveCohorts2.status == 200 && liveCohorts2.json?.objectValue?["cohorts"]?.arrayValue?.isEmpty == true)
    #expect(
      try await imported.server.admin("GET", "/v1/admin/stats/cohorts?origin=import&segment=country&\(range)")
        .errorCode == "bad_parameter")
    // The live rollups of the imported server are what a rebuild from its raw rows gives.
    let database = imported.server.server.store.database
    let rolled = try database.rollupSnapshot(appId: imported.server.alpha.app.id)
    try database.rebuildRollups(appId: imported.server.alpha.app.id)
    #expect(try database.rollupSnapshot(appId: imported.server.alpha.app.id) == rolled)
  }

  @Test("a wrong line is refused with its number and the rest imported; the same file again changes nothing")
  func linesAndIdempotence() async throws {
    let harness = try await Harness(upload: false)
    defer { harness.stop() }
    let server = harness.server
    server.time.advance(days: 30)
    let lines = [
      #"{"profile_id":"\#(Self.a)","installed_at":"\#(Self.iso(2))","store_country":"DEU","locale":"de-DE","custom_attributes":{"plan":"gold"},"apple_ads":{"campaign_id":542370539,"ad_group_id":542370540,"keyword_id":542370541,"conversion_type":"Download"}}"#,
      #"{"profile_id": "not json"#,
      #"{"profile_id":"\#(Self.b)"}"#,
      #"{"customer_user_id":"user-7","installed_at":"\#(Self.iso(31))","colour":"red","transaction_ids":["12a"]}"#,
      "",
      #"{"customer_user_id":"user-8","installed_at":"\#(Self.iso(5))","app_version":"2.3.1"}"#,
    ]
    let first = try await Self.post(server, lines).decode(ProfileImportSummary.self)
    #expect(first.lines == 5 && first.imported == 2 && first.refused == 3 && first.existing == 0, "\(first)")
    #expect(Set(first.refusals.map(\.line)) == [2, 3, 4], "line numbers count the blank line: \(first.refusals)")
    #expect(first.refusals.contains { $0.line == 4 && $0.path == "$.installed_at" && $0.message.contains("future") })
    #expect(first.refusals.contains { $0.line == 4 && $0.path == "$.colour" })
    #expect(first.refusals.contains { $0.line == 4 && $0.path == "$.transaction_ids[0]" })
    #expect(first.refusals.contains { $0.line == 3 && $0.path == "$.installed_at" })
    // The profile keeps its install day, store country, attribution and attributes.
    let profile = try await server.admin("GET", "/v1/admin/profiles/\(Self.a)").decode(ProfilePayload.self)
    #expect(profile.createdAt == Self.iso(2) && profile.install.storeCountry == "DEU")
    #expect(profile.customAttributes["plan"] == .string("gold"))
    let minted = ProfileImportLine.mintedId(customer: "user-8", appId: server.alpha.app.id)
    let found = try await server.admin("GET", "/v1/admin/profiles?customer_user_id=user-8")
    #expect(
      found.json?.objectValue?["profiles"]?.arrayValue?.first?.objectValue?["id"] == .string(minted),
      "\(String(describing: found.json))")
    // The Apple Ads install is in its cohort, on its day.
    let bySource = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?segment=source&by=day&from=\(Self.day(0))&to=\(Self.day(29))")
    let cohorts = bySource.json?.objectValue?["cohorts"]?.arrayValue ?? []
    #expect(
      cohorts.contains {
        $0.objectValue?["segment"] == .string("apple_ads") && $0.objectValue?["start"] == .string(Self.day(2))
          && $0.objectValue?["installs"] == .int(1)
      }, "\(cohorts)")
    // Nothing installed live yet: no switch-over day.
    let before = try await server.admin("GET", "/v1/admin/imports").decode(ProfileImportOverview.self)
    #expect(before.switchOverDay == nil && before.imports.map(\.importId) == [first.importId])
    // The origin segment tells the imported installs from a live one.
    #expect(try await server.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(Self.b)"}"#).status == 201)
    let byOrigin = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?segment=origin&by=month&from=\(Self.day(0))&to=\(Self.day(30))")
    let origins = (byOrigin.json?.objectValue?["cohorts"]?.arrayValue ?? []).reduce(into: [String: Int64]()) {
      if case .string(let segment)? = $1.objectValue?["segment"], case .int(let installs)? = $1.objectValue?["installs"]
      {
        $0[segment, default: 0] += installs
      }
    }
    #expect(origins == ["import": 2, "live": 1], "\(origins)")
    // Again: nothing changes.
    let again = try await Self.post(server, lines).decode(ProfileImportSummary.self)
    #expect(again.imported == 0 && again.existing == 2 && again.refused == 3)
    // The app's imports, newest first (refusals are the import's own answer), and the day it
    // switched over: the first live install's.
    let overview = try await server.admin("GET", "/v1/admin/imports").decode(ProfileImportOverview.self)
    #expect(overview.imports.map(\.importId) == [again.importId, first.importId])
    #expect(overview.imports.allSatisfy { $0.refusals.isEmpty } && overview.imports[1].refused == 3)
    #expect(overview.switchOverDay == Self.day(30), "\(overview)")
    #expect(
      try await server.admin(
        "GET", "/v1/admin/stats/cohorts?segment=source&by=day&from=\(Self.day(0))&to=\(Self.day(29))"
      ).json == bySource.json)
    // Every refusal is kept with the import.
    let kept = try await server.admin("GET", "/v1/admin/imports/\(first.importId)").decode(ProfileImportSummary.self)
    #expect(kept.refusals == first.refusals)
    #expect(try await server.admin("GET", "/v1/admin/imports/999").errorCode == "import_not_found")
    // Not NDJSON, not a secret key.
    #expect(try await Self.post(server, lines, contentType: "application/xml").status == 415)
    let anonymous = try await server.send(
      "POST", "/v1/admin/imports", body: Data("{}\n".utf8), contentType: "application/x-ndjson")
    #expect(anonymous.status == 401)
  }

  @Test(
    "two lanes store batches at once, yet a customer's lines (or an id's) are never stored twice: each later line is existing",
    arguments: StoreFactory.available)
  func lanes(engine: StoreFactory) throws {
    let store = try engine.make()
    defer { store.close() }
    let app = try store.createApp(name: "lanes")
    // Batches of 20: a customer's two lines (under two profile ids), 20 apart, would be in two
    // batches stored at once if the lanes took batches in turn, and neither would see the other.
    let service = ProfileImportService(
      imports: store, apps: store, time: SystemTimeSource(), lanes: 2, batchSize: 20)
    var lines = (0..<600).map { index in
      let customer = index / 40 * 20 + index % 20
      let id = String(format: "7f9619ff-8b86-d011-b42d-%012d", index)
      return
        #"{"profile_id":"\#(id)","customer_user_id":"c-\#(customer)","installed_at":"\#(Self.iso(Double(index % 30)))"}"#
    }
    // One id under two customers (maybe two lanes), far apart: the first stored is kept.
    for pair in 0..<50 {
      let id = String(format: "6f9619ff-8b86-d011-b42d-%012d", pair)
      lines.insert(
        #"{"profile_id":"\#(id)","customer_user_id":"d-\#(pair)","installed_at":"\#(Self.iso(1))"}"#, at: pair * 6)
      lines.append(#"{"profile_id":"\#(id)","customer_user_id":"e-\#(pair)","installed_at":"\#(Self.iso(2))"}"#)
    }
    let session = try service.begin(appId: app.id, source: "ndjson", by: "test")
    let text = [UInt8]((lines.joined(separator: "\n") + "\n").utf8)
    text.withUnsafeBufferPointer { session.feed(chunk: $0) }
    let summary = try session.finish()
    #expect(summary.lines == 700 && summary.imported == 350 && summary.existing == 350, "\(summary)")
    for customer in 0..<300 {
      #expect(try store.profileIds(appId: app.id, customerUserId: "c-\(customer)", limit: 5).count == 1)
    }
    for pair in 0..<50 {
      #expect(try store.profileIds(appId: app.id, customerUserId: "d-\(pair)", limit: 5).count == 1)
      #expect(try store.profileIds(appId: app.id, customerUserId: "e-\(pair)", limit: 5).isEmpty)
    }
    #expect(try store.profileCount(appId: app.id) == 350)
    let rolled = try store.rollupSnapshot(appId: app.id)
    try store.rebuildRollups(appId: app.id)
    #expect(try store.rollupSnapshot(appId: app.id) == rolled)
  }

  @Test(
    "a batch of hundreds is stored as it came, whatever its attributes hold; again, none is stored twice",
    arguments: StoreFactory.available)
  func bulkBatch(engine: StoreFactory) async throws {
    let harness = try await Harness(upload: false, engine: engine)
    defer { harness.stop() }
    let server = harness.server
    server.time.advance(days: 30)
    // Text PostgreSQL's COPY format escapes (tab, line breaks, backslash), quotes and non-ASCII.
    let awkward = "tab\there\nline\\back \"quoted\" \r\nÜmlaut 漢字 🚀"
    let attributes = WireCoding.encode(JSONValue.object(["note": .string(awkward), "rank": .int(7)]))
    let lines = (0..<300).map { index in
      let apple =
        index % 3 == 0
        ? #","apple_ads":{"campaign_id":542370539,"ad_group_id":542370540,"keyword_id":\#(700 + index % 5)}"# : ""
      return
        #"{"customer_user_id":"bulk-\#(index)","installed_at":"\#(Self.iso(Double(index % 20)))","store_country":"GB","custom_attributes":\#(String(decoding: attributes, as: UTF8.self))\#(apple)}"#
    }
    let first = try await Self.post(server, lines).decode(ProfileImportSummary.self)
    #expect(first.imported == 300 && first.existing == 0 && first.refused == 0, "\(first)")
    let id = ProfileImportLine.mintedId(customer: "bulk-42", appId: server.alpha.app.id)
    let profile = try await server.admin("GET", "/v1/admin/profiles/\(id)").decode(ProfilePayload.self)
    #expect(profile.customAttributes["note"] == .string(awkward) && profile.customAttributes["rank"] == .int(7))
    #expect(profile.install.storeCountry == "GBR" && profile.createdAt == Self.iso(2))
    let cohorts = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?segment=source&by=month&from=\(Self.day(0))&to=\(Self.day(29))")
    let installs = (cohorts.json?.objectValue?["cohorts"]?.arrayValue ?? []).reduce(into: [String: Int64]()) {
      if case .string(let segment)? = $1.objectValue?["segment"], case .int(let count)? = $1.objectValue?["installs"] {
        $0[segment, default: 0] += count
      }
    }
    #expect(installs == ["apple_ads": 100, "organic": 200], "\(installs)")
    // The two keyword segments with the most installs (ties by name), the other four summed.
    let topped = try await server.admin(
      "GET", "/v1/admin/stats/cohorts?segment=keyword&top=2&by=month&from=\(Self.day(0))&to=\(Self.day(29))")
    let byKeyword = (topped.json?.objectValue?["cohorts"]?.arrayValue ?? []).reduce(into: [String: Int64]()) {
      if case .string(let segment)? = $1.objectValue?["segment"], case .int(let count)? = $1.objectValue?["installs"] {
        $0[segment, default: 0] += count
      }
    }
    #expect(byKeyword == ["organic": 200, "542370539/542370540/700": 20, "others": 80], "\(byKeyword)")
    #expect(topped.json?.objectValue?["segments_in_others"] == .int(4))
    #expect(
      try await server.admin("GET", "/v1/admin/stats/cohorts?segment=keyword&top=0").errorCode == "bad_parameter")
    let again = try await Self.post(server, lines).decode(ProfileImportSummary.self)
    #expect(again.imported == 0 && again.existing == 300, "\(again)")
    let database = server.server.store.database
    let rolled = try database.rollupSnapshot(appId: server.alpha.app.id)
    try database.rebuildRollups(appId: server.alpha.app.id)
    #expect(try database.rollupSnapshot(appId: server.alpha.app.id) == rolled)
  }

  @Test(
    "a history job that fails mid-history resumes at the revision it reached; Apple's refusal fails one customer only; no webhook for the past",
    arguments: StoreFactory.available)
  func historyResumes(engine: StoreFactory) async throws {
    let harness = try await Harness(webhook: "http://127.0.0.1:9/hooks", engine: engine)
    defer { harness.stop() }
    harness.server.time.advance(days: 40)
    // Five transactions: three pages of two in the stand-in; the second page fails once.
    let renewals = (0..<5).map { (index: Int) -> TransactionPayload in
      let start: Double = 7 * Double(index)
      return F.transaction(
        "30\(index)", original: "300", purchased: start, expires: start + 7, reason: index == 0 ? "PURCHASE" : "RENEWAL"
      )
    }
    harness.apple.history(try renewals.map { try harness.signer.sign(json: F.object($0)) }, for: ["300"])
    harness.apple.failHistory(afterPages: 1, status: 503)
    let answer = try await Self.post(
      harness.server,
      [
        #"{"profile_id":"\#(Self.a)","installed_at":"\#(Self.iso(0))","transaction_ids":["300"],"environment":"Sandbox"}"#
      ])
    #expect(answer.status == 201)
    let importer = harness.server.server.service.historyImporter
    importer.waitUntilIdle()
    await importer.processDue()
    var status = try await harness.server.admin("GET", "/v1/admin/history-import").decode(HistoryImportStatus.self)
    #expect(status.pending == 1 && status.transactions == 2 && status.lastError?.contains("503") == true, "\(status)")
    // Not before the back-off; then from the stored revision, not from the start.
    await importer.processDue()
    #expect(
      try await harness.server.admin("GET", "/v1/admin/history-import").decode(HistoryImportStatus.self).transactions
        == 2)
    harness.server.time.advance(days: 0.01)
    await importer.processDue()
    status = try await harness.server.admin("GET", "/v1/admin/history-import").decode(HistoryImportStatus.self)
    #expect(status.done == 1 && status.transactions == 5, "each transaction counted once: \(status)")
    #expect(try await harness.profile(Self.a).subscriptions["pro_monthly"]?.vendorTransactionId == "304")
    // A transaction id Apple does not know fails that customer, not the import.
    _ = try await Self.post(
      harness.server,
      [
        #"{"profile_id":"\#(Self.b)","installed_at":"\#(Self.iso(0))","transaction_ids":["999"],"environment":"Sandbox"}"#
      ])
    importer.waitUntilIdle()
    await importer.processDue()
    status = try await harness.server.admin("GET", "/v1/admin/history-import").decode(HistoryImportStatus.self)
    #expect(status.customers == 2 && status.done == 1 && status.failed == 1, "\(status)")
    // The app's backend heard of those purchases from the previous provider: none is sent again.
    let deliveries = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries")
    #expect(
      deliveries.json?.objectValue?["deliveries"]?.arrayValue?.isEmpty == true, "\(String(describing: deliveries.json))"
    )
  }
}
