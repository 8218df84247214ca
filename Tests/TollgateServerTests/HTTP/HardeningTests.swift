import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Rate limits, a full disk, backups and the connection limit: what an operator relies on
/// when things go wrong.
@Suite("Hardening")
struct HardeningTests {
  @Test("a bucket spends its burst, then refills at its rate")
  func bucket() throws {
    let now = Mutex<Double>(100)
    let limiter = RateLimiter(clock: { now.withLock { $0 } })
    let limit = try #require(RateLimiter.Limit("2/s,burst=3"))
    #expect((0..<3).map { _ in limiter.take("a", limit) } == [nil, nil, nil])
    #expect(limiter.take("a", limit) == 0.5, "half a second until the next token")
    #expect(limiter.take("b", limit) == nil, "buckets are per key")
    now.withLock { $0 += 0.5 }
    #expect(limiter.take("a", limit) == nil)
    #expect(limiter.take("a", limit) != nil)
    #expect(RateLimiter.Limit("10/h")?.perSecond == 10.0 / 3_600)
    #expect(RateLimiter.Limit("off")?.isOff == true)
    for bad in ["10", "10/day", "x/s", "5/s,burst=0", "5/s,b=3"] { #expect(RateLimiter.Limit(bad) == nil, "\(bad)") }
  }

  @Test(
    "beyond the address limit: 429 rate_limited with Retry-After; health is not limited; a trusted proxy's clients count apart"
  )
  func addressLimit() async throws {
    var limits = RateLimits()
    limits.perAddress = "3/min,burst=3"
    let server = try TestServer(rateLimits: limits)
    defer { server.stop() }
    for _ in 0..<3 { #expect(try await server.sdk("GET", "/v1/sdk/fallback").status != 429) }
    let limited = try await server.sdk("GET", "/v1/sdk/fallback")
    #expect(limited.status == 429)
    #expect(limited.errorCode == "rate_limited")
    #expect(Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
    #expect(try await server.send("GET", "/health").status == 200)

    var proxied = RateLimits()
    proxied.perAddress = "1/min,burst=1"
    proxied.trustedProxies = ["127.0.0.1"]
    let behindProxy = try TestServer(rateLimits: proxied)
    defer { behindProxy.stop() }
    func from(_ client: String) async throws -> Int {
      try await behindProxy.send(
        "GET", "/v1/sdk/fallback", key: behindProxy.sdkKey, headers: ["X-Forwarded-For": "203.0.113.9, \(client)"]
      ).status
    }
    #expect(try await from("10.0.0.1") != 429)
    #expect(try await from("10.0.0.2") != 429)
    #expect(try await from("10.0.0.1") == 429)
    #expect(!behindProxy.log.all.contains { $0.contains("trusted proxy") })
  }

  @Test("X-Forwarded-For from a peer that is not a trusted proxy is ignored, and logged once with the fix")
  func untrustedForwarder() async throws {
    var limits = RateLimits()
    limits.perAddress = "2/min,burst=2"
    let server = try TestServer(rateLimits: limits)
    defer { server.stop() }
    for client in ["10.0.0.1", "10.0.0.2", "10.0.0.3"] {
      _ = try await server.send("GET", "/v1/sdk/fallback", key: server.sdkKey, headers: ["X-Forwarded-For": client])
    }
    // All three counted as the proxy's own address: the third is over the limit.
    let third = try await server.send(
      "GET", "/v1/sdk/fallback", key: server.sdkKey, headers: ["X-Forwarded-For": "10.0.0.4"])
    #expect(third.status == 429)
    let warnings = server.log.all.filter { $0.contains("X-Forwarded-For") }
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains("--trusted-proxies 127.0.0.1") == true)
  }

  @Test("attribution tokens are limited per profile and per public key")
  func tokenLimits() async throws {
    var limits = RateLimits()
    limits.tokensPerProfile = "2/h,burst=2"
    limits.tokensPerKey = "3/h,burst=3"
    let server = try TestServer(rateLimits: limits)
    defer { server.stop() }
    func post(_ id: String, _ n: Int) async throws -> HTTPResult {
      try await server.sdk(
        "POST", RoutePaths.appleAdsAttribution(id), json: #"{"token":"sbx|not_found=9|campaign=\#(n)"}"#)
    }
    let first = try await server.createProfile()
    #expect(try await post(first, 1).status == 202)
    #expect(try await post(first, 2).status == 202)
    let third = try await post(first, 3)
    #expect(third.status == 429)
    #expect(third.errorCode == "rate_limited")
    let second = try await server.createProfile()
    #expect(try await post(second, 4).status == 202)
    #expect(try await post(second, 5).status == 429, "the key's three tokens are spent")
    // A token handed over with creation counts the same.
    let body = #"{"profile_id":"\#(UUID().uuidString.lowercased())","apple_ads_token":"sbx|campaign=6"}"#
    #expect(try await server.sdk("POST", RoutePaths.profiles, json: body).status == 429)
  }

  @Test(
    "a full disk: writes answer 503 storage_unavailable, reads keep working, nothing acknowledged is lost, and writes resume"
  )
  func diskFull() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let store = try #require(server.server.store.database as? SQLiteStore)
    var acknowledged: [String] = []
    for _ in 0..<5 { acknowledged.append(try await server.createProfile()) }
    let pages = try store.with { db in
      try db.query("PRAGMA page_count").first?.decode("page_count", as: Int64.self) ?? 0
    }
    try store.limitPages(Int(pages))
    var refusal: HTTPResult?
    let padding = String(repeating: "x", count: 3_000)
    for _ in 0..<200 {
      let id = UUID().uuidString.lowercased()
      let result = try await server.sdk(
        "POST", RoutePaths.profiles, json: #"{"profile_id":"\#(id)","customer_user_id":"\#(padding)"}"#)
      if result.status == 201 {
        acknowledged.append(id)
      } else {
        refusal = result
        break
      }
    }
    let refused = try #require(refusal, "the capped database filled up")
    #expect(refused.status == 503)
    #expect(refused.errorCode == "storage_unavailable")
    #expect(refused.header("Retry-After") == "5")
    #expect(server.log.all.contains { $0.contains("storage cannot write") })
    // Reads keep working, and every acknowledged write is there.
    for id in acknowledged { #expect(try await server.sdk("GET", RoutePaths.profile(id)).status == 200) }
    // Space returns: writes work again without a restart.
    try store.limitPages(nil)
    #expect(
      try await server.sdk("POST", RoutePaths.profiles, json: #"{"profile_id":"\#(UUID().uuidString)"}"#).status == 201)
  }

  @Test("a backup taken while writes go on restores into an empty directory with the same contents")
  func backupAndRestore() async throws {
    let server = try TestServer()
    defer { server.stop() }
    try await server.applySampleConfig()
    var before: [String] = []
    for _ in 0..<20 { before.append(try await server.createProfile()) }
    let directory = temporaryDirectory()
    let backup = directory.appendingPathComponent("backup.sqlite").path
    // Writes keep going on another task while the backup runs. It is stopped by a flag, not by
    // cancelling the task: cancelling an async URLSession request while it completes can deadlock
    // swift-corelibs-foundation (the cancel handler waits for the session queue, which waits for
    // the task's status lock) — it hung one CI run.
    let stop = Mutex(false)
    let writer = Task {
      var written = 0
      while !stop.withLock({ $0 }) && written < 200 {
        _ = try? await server.createProfile()
        written += 1
      }
    }
    try SQLiteStore.backup(database: server.databasePath, to: backup)
    stop.withLock { $0 = true }
    _ = await writer.value
    #expect(throws: StoreError.self) { try SQLiteStore.backup(database: server.databasePath, to: backup) }

    let restoredPath = directory.appendingPathComponent("restored/tollgate.sqlite").path
    try SQLiteStore.restore(from: backup, to: restoredPath)
    #expect(throws: StoreError.self) { try SQLiteStore.restore(from: backup, to: restoredPath) }
    let restored = try SQLiteStore(path: restoredPath)
    defer { restored.close() }
    // Everything acknowledged before the backup started is in it, keys and config included.
    for id in before { #expect(try restored.profile(appId: server.alpha.app.id, id: id) != nil) }
    #expect(try restored.key(hash: KeyIssuer.hash(server.adminKey))?.appId == server.alpha.app.id)
    #expect(
      try restored.currentConfig(appId: server.alpha.app.id)?.document
        == server.server.store.database.config(appId: server.alpha.app.id, revision: 1)?.document)

    // With writes stopped, a backup equals the live database row for row.
    let quiet = directory.appendingPathComponent("quiet.sqlite").path
    try SQLiteStore.backup(database: server.databasePath, to: quiet)
    let live = try SQLiteStore(path: server.databasePath, connections: 1)
    let copy = try SQLiteStore(path: quiet, connections: 1)
    defer {
      live.close()
      copy.close()
    }
    for table in ["apps", "api_keys", "configs", "profiles", "assignments", "audit_log"] {
      let sql = "SELECT * FROM \(table) ORDER BY 1, 2"
      #expect(try live.with { try $0.query(sql) } == copy.with { try $0.query(sql) }, "\(table)")
    }
  }

  @Test("not a Tollgate database, or a damaged one, is not restored")
  func restoreRefusesJunk() throws {
    let directory = temporaryDirectory()
    let junk = directory.appendingPathComponent("junk.sqlite").path
    try Data("not a database at all, just text".utf8).write(to: URL(fileURLWithPath: junk))
    #expect(throws: StoreError.self) {
      try SQLiteStore.restore(from: junk, to: directory.appendingPathComponent("a/tollgate.sqlite").path)
    }
    let other = directory.appendingPathComponent("other.sqlite").path
    let connection = try SQLiteConnection(path: other)
    try connection.execute("CREATE TABLE t (x)")
    connection.close()
    #expect(throws: StoreError.self) {
      try SQLiteStore.restore(from: other, to: directory.appendingPathComponent("b/tollgate.sqlite").path)
    }
    #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b/tollgate.sqlite").path))
  }

  @Test("beyond the connection limit a request is answered 503 server_busy at once, not queued")
  func connectionLimit() throws {
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.connectionLimit = 2
    let http = HTTPServer(settings: settings) { _ in Response(status: 204) }
    let port = try http.start()
    defer { http.shutdown() }
    let held = try (0..<2).map { _ in try RawConnection(port: port) }
    defer { held.forEach { $0.close() } }
    var buffer = [UInt8](repeating: 0, count: 1024)
    for connection in held {
      connection.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
      #expect(recv(connection.fd, &buffer, buffer.count, 0) > 0)
    }
    #expect(http.openConnections == 2)
    let started = ContinuousClock.now
    let extra = try RawConnection(port: port)
    defer { extra.close() }
    extra.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n")
    let count = recv(extra.fd, &buffer, buffer.count, 0)
    let answer = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
    #expect(answer.hasPrefix("HTTP/1.1 503"))
    #expect(answer.contains("server_busy"))
    #expect(answer.contains("Retry-After: 1"))
    #expect(started.duration(to: .now) < .seconds(1), "answered at once, not left in the queue")
    #expect(extra.readUntilClosed().closedByServer)
    // Once a held connection goes, there is room again.
    held[0].close()
    Thread.sleep(forTimeInterval: 0.2)
    let later = try RawConnection(port: port)
    defer { later.close() }
    later.send("GET /d HTTP/1.1\r\nHost: x\r\n\r\n")
    let again = recv(later.fd, &buffer, buffer.count, 0)
    #expect(String(decoding: buffer.prefix(max(0, again)), as: UTF8.self).hasPrefix("HTTP/1.1 204"))
  }
}
