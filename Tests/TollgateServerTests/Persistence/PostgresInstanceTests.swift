import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Several Tollgate servers on one PostgreSQL behave like one.
@Suite("Several instances on PostgreSQL", .enabled(if: PostgresCluster.url != nil), .timeLimit(.minutes(5)))
struct PostgresInstanceTests {
  /// Two servers on one schema.
  func pair() throws -> (TestServer, TestServer) {
    let schema = PostgresCluster.freshSchema()
    let time = ManualTime()
    let first = try TestServer(time: time, store: OpenedStore(PostgresCluster.store(schema: schema)))
    let second = try TestServer(time: time, store: OpenedStore(PostgresCluster.store(schema: schema)))
    return (first, second)
  }

  @Test("the same profile id created on two instances at once is one profile")
  func concurrentCreation() async throws {
    let (a, b) = try pair()
    defer {
      a.stop()
      b.stop()
    }
    for _ in 0..<10 {
      let id = UUID().uuidString.lowercased()
      let body = #"{"profile_id":"\#(id)"}"#
      async let one = a.sdk("POST", "/v1/sdk/profiles", json: body)
      async let two = b.sdk("POST", "/v1/sdk/profiles", json: body, key: b.sdkKey)
      let statuses = try await [one.status, two.status].sorted()
      #expect(statuses == [200, 201])
    }
  }

  @Test("a config applied through one instance is served by the other after its revision poll; variations agree")
  func configAndVariations() async throws {
    let (a, b) = try pair()
    defer {
      a.stop()
      b.stop()
    }
    try await a.applySampleConfig()
    try b.server.service.refreshConfigs()
    #expect(
      try await b.sdk("GET", "/v1/sdk/placements/onboarding/default").decode(PlacementFlowResponse.self).placement
        .revision == 1)
    let experiment =
      #"{"flows":[{"id":"x"},{"id":"y"}],"audiences":[{"id":"all","rule":{}}],"placements":[{"id":"p","default":"x","targets":[{"audience":"all","experiment":{"name":"t","variations":[{"flow":"x","weight":50},{"flow":"y","weight":50}]}}]}]}"#
    #expect(try await a.admin("PUT", "/v1/admin/config", json: experiment).status == 200)
    try b.server.service.refreshConfigs()  // what its once-a-second timer does
    for _ in 0..<10 {
      let id = try await a.createProfile()
      let fromA = try await a.sdk("GET", "/v1/sdk/placements/p/flow?profile_id=\(id)").decode(
        PlacementFlowResponse.self)
      let fromB = try await b.sdk("GET", "/v1/sdk/placements/p/flow?profile_id=\(id)", key: b.sdkKey)
        .decode(PlacementFlowResponse.self)
      #expect(fromA.flow.variationId == fromB.flow.variationId)
      #expect(fromB.placement.revision == 2)
    }
  }

  @Test("each pending attribution job is processed by exactly one instance")
  func jobsOnce() async throws {
    let (a, b) = try pair()
    defer {
      a.stop()
      b.stop()
    }
    var tokens: [String] = []
    for index in 0..<12 {
      let id = try await a.createProfile()
      let token = "sbx|campaign=\(index)"
      tokens.append(token)
      _ = try a.server.store.database.enqueueAttribution(
        appId: a.alpha.app.id, profileId: id, token: token, tokenHash: Digest.sha256Hex(token), at: a.time.now())
    }
    async let fromA: Void = a.attributionPass()
    async let fromB: Void = b.attributionPass()
    _ = await (fromA, fromB)
    for token in tokens {
      #expect(a.sandbox.tally(token).calls + b.sandbox.tally(token).calls == 1, "\(token)")
    }
    #expect(try a.server.store.database.attributionQueueDepth() == 0)
  }
}

@Suite("PostgreSQL outage", .enabled(if: PostgresCluster.url != nil), .timeLimit(.minutes(5)))
struct PostgresOutageTests {
  @Test("while PostgreSQL is down requests get 503 JSON; afterwards service resumes and nothing acknowledged is lost")
  func restart() async throws {
    let cluster = try DedicatedCluster()
    defer { cluster.remove() }
    let store = try PostgresStore(url: cluster.url, connections: 2)
    let server = try TestServer(store: OpenedStore(store))
    defer { server.stop() }
    try await server.applySampleConfig()
    let before = try await server.createProfile()
    // Both pooled connections have been used; the restart leaves them idle and stale.
    try store.pool.each { _ = try $0.query("SELECT 1", []) }

    try cluster.stop()
    let during = try await server.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(UUID().uuidString)"}"#)
    #expect(during.status == 503)
    #expect(during.errorCode == "database_unavailable")
    #expect(try await server.send("GET", "/health").status == 503)

    try cluster.start()
    // Every connection that sat idle through the restart answers on its first use: none
    // spends a request discovering that its socket is dead.
    try store.pool.each { _ = try $0.query("SELECT 1", []) }
    let after = try await server.sdk("GET", "/v1/sdk/profiles/\(before)")
    #expect(after.status == 200)
    #expect(try await server.createProfile().isEmpty == false)
    #expect(try await server.send("GET", "/health").status == 200)
  }
}

/// PostgreSQL is backed up with its own tools; the README's commands, tested.
@Suite(
  "PostgreSQL backup",
  .enabled(if: PostgresCluster.url != nil && PostgresCluster.environment["TOLLGATE_TEST_POSTGRES_BIN"] != nil),
  .timeLimit(.minutes(5)))
struct PostgresBackupTests {
  /// Runs a PostgreSQL client tool (posix_spawn, like the cluster helpers: several
  /// Foundation `Process` launches at once from parallel tests have crashed in `Process.run`).
  func run(_ tool: String, _ arguments: [String]) throws {
    let bin = URL(fileURLWithPath: PostgresCluster.environment["TOLLGATE_TEST_POSTGRES_BIN"]!)
    let status = spawnAndWait([bin.appendingPathComponent(tool).path] + arguments)
    #expect(status == 0, "\(tool) \(arguments.joined(separator: " ")) exited with \(status)")
  }

  @Test("pg_dump --format=custom, then pg_restore into an empty database: the store reads back the same data")
  func dumpAndRestore() async throws {
    let url = try #require(PostgresCluster.url)
    let schema = PostgresCluster.freshSchema()
    let store = try PostgresCluster.store(schema: schema)
    let keys = try KeyIssuer(apps: store).issue(appName: "shop")
    let document = try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    _ = try ConfigImporter(database: store).apply(document, appId: keys.app.id)
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    var ids: [String] = []
    for index in 0..<10 {
      let id = UUID().uuidString.lowercased()
      ids.append(id)
      _ = try store.insertProfile(
        appId: keys.app.id,
        ProfileRecord(id: id, customAttributes: ["n": .int(Int64(index))], createdAt: now, updatedAt: now))
    }
    store.close()

    let dump = temporaryDirectory().appendingPathComponent("tollgate.dump").path
    try run("pg_dump", ["--format=custom", "--schema=\(schema)", "--file=\(dump)", url])
    let database = "restore_" + schema
    try run("psql", ["--quiet", "--dbname=\(url)", "--command=CREATE DATABASE \(database)"])
    let slash = try #require(url.range(of: "/", options: .backwards))
    let target = url.replacingCharacters(in: slash.lowerBound..<url.endIndex, with: "/\(database)")
    try run("pg_restore", ["--dbname=\(target)", dump])

    let restored = try PostgresStore(url: target, connections: 1, schema: schema)
    defer { restored.close() }
    #expect(try restored.key(hash: KeyIssuer.hash(keys.secretKey))?.appId == keys.app.id)
    #expect(try restored.currentConfig(appId: keys.app.id)?.document == document)
    for (index, id) in ids.enumerated() {
      #expect(try restored.profile(appId: keys.app.id, id: id)?.customAttributes["n"] == .int(Int64(index)))
    }
    // The restored database takes writes: its sequences came along.
    #expect(try restored.configHistory(appId: keys.app.id, limit: 5).count == 1)
    _ = try ConfigImporter(database: restored).apply(document, appId: keys.app.id)
    #expect(try restored.configHistory(appId: keys.app.id, limit: 5).first?.revision == 2)
  }
}
