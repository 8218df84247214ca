import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Tollgate through PgBouncer in transaction pooling mode (`--database-listen-url`): nothing is
/// kept in a pooled session, and announcements are heard on a direct connection. The store
/// conformance suite runs through it too (`StoreFactory.pgbouncer`); here, what only several
/// instances show.
@Suite("PgBouncer (transaction pooling)", .enabled(if: PgBouncer.url != nil), .timeLimit(.minutes(5)))
struct PgBouncerTests {
  typealias F = StoreKitFixtures

  @Test("two stores opening a new database through PgBouncer at once apply each migration once")
  func migrationsTogether() async throws {
    let database = try PgBouncer.freshDatabase()
    async let first = Task.detached { try PgBouncer.store(database: database, connections: 1) }.value
    async let second = Task.detached { try PgBouncer.store(database: database, connections: 1) }.value
    let stores = try await [first, second]
    defer { stores.forEach { $0.close() } }
    let applied = try stores[0].with { db in
      try db.query("SELECT version FROM schema_migrations ORDER BY version").map {
        try $0.decode("version", as: Int64.self)
      }
    }
    #expect(applied == Migrations.postgres.map(\.version))
  }

  @Test("a pooled transaction whose settings fail is rolled back: the connection goes on working")
  func failedSettings() throws {
    let url = try #require(PgBouncer.url) + "/" + (try PgBouncer.freshDatabase())
    let connection = try PostgresConnection(
      conninfo: url, session: .pooled(settings: ["SET LOCAL lock_timeout = 5000", "SET LOCAL no_such_setting = 1"]))
    #expect(throws: StoreError.self) { try connection.transaction { 1 } }
    let rows = try connection.query("SELECT 1 AS one")
    #expect(try rows.first?.decode("one", as: Int64.self) == 1)
  }

  @Test(
    "two instances through PgBouncer: a change through one reaches the other's cache, announced on the direct connection"
  )
  func coherence() async throws {
    let database = try PgBouncer.freshDatabase()
    let firstDatabase = try PgBouncer.store(database: database)
    let first = CachedStore(firstDatabase, capacity: 100)
    let secondDatabase = try PgBouncer.store(database: database)
    let second = CachedStore(secondDatabase, capacity: 100)
    defer {
      first.close()
      second.close()
    }
    #expect(secondDatabase.announcementConninfo?.contains("/\(database)?") == true)
    #expect(secondDatabase.announcementConninfo?.hasPrefix(try PgBouncer.directURL(database)) == true)
    #expect(
      secondDatabase.conninfo.contains("connect_timeout=20&") && !secondDatabase.conninfo.contains("connect_timeout=3"),
      "the URL's own connect_timeout is kept")
    #expect(secondDatabase.announcementConninfo?.contains("connect_timeout=3&") == true, "and 3 s without one")
    let app = try firstDatabase.createApp(name: "pooled")
    let id = "00000000-0000-4000-8000-000000000001"
    _ = try first.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0)))
    for _ in 0..<250 where first.profileCache.bypass || second.profileCache.bypass {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(!second.profileCache.bypass, "the listener is up on the direct connection")
    let targeting = TargetingSchema(reading: ["custom.round"], accessLevels: [])
    func seen() throws -> JSONValue? {
      try second.targetingView(appId: app.id, id: id, schema: targeting)?.value(
        of: "custom.round", schema: targeting, now: F.date(0))
    }
    for round in 1...5 {
      _ = try seen()
      _ = try first.updateProfile(appId: app.id, id: id, at: F.date(0)) { profile in
        profile.customAttributes["round"] = .int(Int64(round))
        return true
      }
      for _ in 0..<500 where try seen() != .int(Int64(round)) { try await Task.sleep(for: .milliseconds(4)) }
      #expect(try seen() == .int(Int64(round)))
    }
    #expect(second.profileCache.figures.hits > 0, "the view was read from memory between changes")
  }

  @Test(
    "tollgate through PgBouncer: the CLI creates keys and imports a configuration, and two servers answer the SDK as one",
    .enabled(if: FileManager.default.fileExists(atPath: CLI.executable.path)))
  func twoServers() async throws {
    let database = try PgBouncer.freshDatabase()
    let pooled = try #require(PgBouncer.url) + "/" + database
    let direct = try PgBouncer.directURL(database)
    let cli = CLI(database: pooled)
    let keys = try cli.run(["keys", "create", "--app", "shop", "--database-listen-url", direct])
    #expect(keys.status == 0, "\(keys.stderr)")
    let publicKey = try #require(keys.stdout.firstMatch(of: /public key: (tg_pub_\S+)/)).1
    let sample = repositoryRoot.appendingPathComponent("examples/sample-config.json").path
    let imported = try cli.run(["import", sample, "--app", "shop", "--database-listen-url", direct])
    #expect(imported.status == 0, "\(imported.stderr)")
    let secrets = String(repeating: "ab", count: 32)
    let options = ["--database", pooled, "--database-listen-url", direct, "--secrets-key", secrets]
    let a = try ServeProcess(options)
    let b = try ServeProcess(options)
    defer {
      a.stop()
      b.stop()
    }
    func call(_ server: ServeProcess, _ method: String, _ path: String, _ body: String? = nil) async throws -> (
      Int, [String: JSONValue]
    ) {
      var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
      request.httpMethod = method
      request.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
      if let body {
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      }
      let (data, response) = try await TestServer.session.data(for: request)
      let json = (try? JSONDecoder().decode([String: JSONValue].self, from: data)) ?? [:]
      return ((response as? HTTPURLResponse)?.statusCode ?? 0, json)
    }
    let id = UUID().uuidString.lowercased()
    #expect(try await call(a, "POST", "/v1/sdk/profiles", #"{"profile_id":"\#(id)"}"#).0 == 201)
    #expect(try await call(b, "GET", "/v1/sdk/profiles/\(id)").0 == 200)
    for round in 1...3 {
      let changed = try await call(b, "PATCH", "/v1/sdk/profiles/\(id)", #"{"custom_attributes":{"round":\#(round)}}"#)
      #expect(changed.0 == 200)
      var seen: JSONValue?
      for _ in 0..<250 {
        seen = try await call(a, "GET", "/v1/sdk/profiles/\(id)").1["custom_attributes"]?.objectValue?["round"]
        if seen?.numberValue == Double(round) { break }
        try await Task.sleep(for: .milliseconds(20))
      }
      #expect(seen?.numberValue == Double(round), "the change through b is read through a")
    }
    let flow = try await call(a, "GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)")
    #expect(flow.0 == 200 && flow.1["flow"] != nil)
    #expect(a.stop() == .exit(0) && b.stop() == .exit(0))
  }

  @Test(
    "--database-listen-url is refused beside a SQLite database",
    .enabled(if: FileManager.default.fileExists(atPath: CLI.executable.path)))
  func refusedWithSQLite() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("l.sqlite").path)
    let refused = try cli.run([
      "keys", "create", "--app", "shop", "--database-listen-url", "postgres://tollgate@127.0.0.1:9/x",
    ])
    #expect(refused.status != 0 && refused.stderr.contains("--database-listen-url"), "\(refused.stderr)")
  }
}
