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

/// The importer as operators run it: the `tollgate` binary, killed mid-import, restarted;
/// and two instances on one database.
@Suite("Apple Ads spend import, processes and instances")
struct SpendImportProcessTests {
  static let secretsKey = String(repeating: "ab", count: 32)

  @Test(
    "a server SIGKILLed between report pages resumes at its cursor after restart: no day missing, none counted twice",
    .enabled(if: FileManager.default.fileExists(atPath: CLI.executable.path)))
  func killedMidImport() async throws {
    let directory = temporaryDirectory()
    let database = directory.appendingPathComponent("spend.sqlite").path
    let standIn = AppleAdsCampaignSandbox()
    let base = try standIn.start()
    defer { standIn.stop() }
    let key = try ECKey.generateP256()
    let client = AppleAdsCampaignSandbox.Client(
      clientId: "SEARCHADS.kill", teamId: "SEARCHADS.kill-team", keyId: "kill-key", publicKeyPEM: key.publicPEM,
      orgId: 7, currency: "EUR")
    standIn.register(client)
    // One row per page; the 14th call (in the second 30-day window, after the first was
    // stored) gets no answer until the test says so.
    standIn.maximumPageSize = 1
    standIn.hold(after: 13)
    let cli = CLI(database: database)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let sample = try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    var document = try JSONSerialization.jsonObject(with: sample) as! [String: Any]
    document["apple_ads_api"] = [
      "org_id": 7, "client_id": client.clientId, "team_id": client.teamId, "key_id": client.keyId,
    ]
    let configFile = directory.appendingPathComponent("app.json")
    try JSONSerialization.data(withJSONObject: document).write(to: configFile)
    #expect(try cli.run(["import", configFile.path, "--app", "shop", "--secrets-key", Self.secretsKey]).status == 0)
    let keyFile = directory.appendingPathComponent("ads-key.pem")
    try key.privatePEM.write(to: keyFile, atomically: true, encoding: .utf8)
    let saved = try cli.run([
      "apple-ads", "credentials", "--app", "shop", "--key", keyFile.path, "--secrets-key", Self.secretsKey,
    ])
    #expect(saved.status == 0, "\(saved.stderr)")
    #expect(!saved.stdout.contains("PRIVATE"))
    let arguments = [
      "--database", database, "--secrets-key", Self.secretsKey, "--apple-ads-api-url",
      base.appendingPathComponent("api/v5/").absoluteString, "--apple-id-url", base.absoluteString,
    ]

    var server = try ServeProcess(arguments)
    // Waits on the stand-in's signal, on a thread of its own: a call past the 13th is held now
    // (on a loaded machine one more may have come in meanwhile; nothing past them was answered).
    let held = await Task.detached { standIn.waitForHeldAnswer(timeout: 60) }.value
    try #require(held, "the import never got to its 14th page")
    #expect(server.kill(SIGKILL) == .signal(SIGKILL))
    standIn.release()
    let callsBefore = standIn.reportCalls.count
    let store = try SQLiteStore(path: database)
    let app = try #require(try store.app(named: "shop"))
    let job = try #require(try store.spendImportJob(appId: app.id))
    let cursor = try #require(job.cursorDay)
    let first = try #require(job.runFirstDay)
    #expect(cursor == first + 30, "one window stored before the kill")
    let today = StatsDay.of(Date())
    let truth = standIn.truth(client, days: (today - 89)...today).filter { $0.spend != 0 || $0.totalInstalls != 0 }
    let stored = try store.spendFigures(appId: app.id, days: (today - 120)...today)
    #expect(Set(stored) == Set(truth.filter { $0.day < cursor }), "what was stored is exactly the first window")
    if let owner = job.leaseOwner {
      // The killed process's lease would keep others off for 90 s; the test runs its clock out.
      #expect(
        try store.renewSpendImportLease(
          appId: app.id, owner: owner, until: Date(timeIntervalSince1970: 0), at: Date(timeIntervalSince1970: 0)))
    } else {
      // On a loaded machine the held page can outlast the client's 30 s timeout before the
      // kill: the run then ended with a retry a minute later, its cursor kept. Ask for it now,
      // as `tollgate apple-ads import` would.
      #expect(try store.requestSpendImport(appId: app.id, at: Date()))
    }
    store.close()

    server = try ServeProcess(arguments)
    let reopened = try SQLiteStore(path: database)
    defer { reopened.close() }
    let restarted = Date()
    while try reopened.spendImportJob(appId: app.id)?.backfilled != true, Date().timeIntervalSince(restarted) < 60 {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(server.stop() == .exit(0))
    let done = try #require(try reopened.spendImportJob(appId: app.id))
    #expect(done.backfilled && done.cursorDay == nil && done.lastError == nil)
    let final = try reopened.spendFigures(appId: app.id, days: (today - 120)...today)
    #expect(final.count == truth.count)
    #expect(Set(final) == Set(truth))
    // The restart fetched windows two and three (8 one-row pages each: 2 campaigns, 2 + 1 ad
    // groups, 2 + 1 keywords), not the stored first window again.
    #expect(standIn.reportCalls.count - callsBefore == 16)
  }
}

/// Two instances on one database.
@Suite("Apple Ads spend import on two instances")
struct SpendImportInstancesTests {
  /// Both instances run their importer at once; the app is imported once.
  func importOnce(store: @escaping () throws -> any Database) async throws {
    let harness = try SpendHarness(store: try store())
    defer { harness.stop() }
    let other = try TestServer(
      time: harness.time, store: OpenedStore(try store()), campaignAPI: harness.base,
      spendImportPolicy: SpendImportPolicy())
    defer { other.stop() }
    _ = try await harness.configure()
    _ = try await harness.upload()
    // Let the pass the upload kicked finish first on neither: both race for the job now.
    let first = harness.server.server.service.spendImporter
    let second = other.server.service.spendImporter
    async let a = first.processDue()
    async let b = second.processDue()
    let ran = await a + b
    await harness.importPass()
    while await second.processDue() > 0 {}
    #expect(ran <= 1)
    #expect(harness.standIn.tokensIssued == 1)
    // Three 30-day windows of 5 calls (campaigns, then 2 campaigns × ad groups and keywords).
    #expect(harness.standIn.reportCalls.count == 15)
    #expect(try harness.stored() == harness.truth())
  }

  @Test("on SQLite")
  func sqlite() async throws {
    let path = temporaryDirectory().appendingPathComponent("shared.sqlite").path
    try await importOnce { try SQLiteStore(path: path) }
  }

  @Test("on PostgreSQL", .enabled(if: PostgresCluster.url != nil))
  func postgres() async throws {
    let schema = PostgresCluster.freshSchema()
    try await importOnce { try PostgresCluster.store(schema: schema) }
  }
}
