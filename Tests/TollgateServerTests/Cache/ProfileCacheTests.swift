import Dispatch
import Foundation
import Testing
import TollgateAPI
import TollgateDevTools

@testable import TollgateServer

/// The in-memory profile cache changes nothing a client sees: the same operations give the
/// same bytes with and without it; a small cap evicts; on PostgreSQL a change made through one
/// instance reaches another's cache by notification, and a lost notification connection makes
/// the cache step aside until it is back.
@Suite("Profile cache")
struct ProfileCacheTests {
  typealias F = StoreKitFixtures

  @Test("a randomized sequence of operations answers byte for byte the same with the cache on and off")
  func equivalence() async throws {
    let signer = try StoreKitSigner(appleNames: false)
    let verifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    let cached = try TestServer(appStoreVerifier: verifier, profileCache: 8)
    let plain = try TestServer(appStoreVerifier: verifier)
    defer {
      cached.stop()
      plain.stop()
    }
    try await cached.applySampleConfig()
    try await plain.applySampleConfig()
    let ids = (0..<12).map { String(format: "00000000-0000-4000-8000-%012d", $0) }
    var random = Seeded(state: 42)
    var transaction = 7_000
    for step in 0..<300 {
      let id = ids.randomElement(using: &random)!
      let request: (String, String, String?)
      switch Int.random(in: 0..<7, using: &random) {
      case 0:
        request = ("POST", "/v1/sdk/profiles", #"{"profile_id":"\#(id)","install":{"app_version":"2.\#(step % 3).0"}}"#)
      case 1:
        request = (
          "PATCH", "/v1/sdk/profiles/\(id)",
          #"{"custom_attributes":{"sessions":\#(Int.random(in: 0...40, using: &random))}}"#
        )
      case 2: request = ("GET", "/v1/sdk/profiles/\(id)", nil)
      case 3: request = ("GET", "/v1/sdk/placements/settings_upgrade/flow?profile_id=\(id)", nil)
      case 4: request = ("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(id)", nil)
      case 5:
        transaction += 1
        let jws = try signer.sign(
          json: F.object(
            F.transaction(
              String(transaction), original: String(transaction), purchased: Double(step) / 100,
              expires: Double(step) / 100 + 1, token: id)))
        request = (
          "POST", "/v1/sdk/profiles/\(id)/transactions",
          String(decoding: WireCoding.encode(TransactionRequest(signedTransaction: jws)), as: UTF8.self)
        )
      default:
        // Time passes: subscriptions lapse, which profiles then re-derive on read.
        cached.time.advance(days: 0.25)
        plain.time.advance(days: 0.25)
        continue
      }
      let (method, path, body) = request
      let a = try await cached.sdk(method, path, json: body)
      let b = try await plain.sdk(method, path, json: body)
      #expect(a.status == b.status, "step \(step): \(method) \(path)")
      #expect(a.body == b.body, "step \(step): \(method) \(path)")
    }
    let metrics = String(decoding: try await cached.send("GET", "/metrics").body, as: UTF8.self)
    #expect(metrics.contains("tollgate_profile_cache_capacity 8"))
    #expect(!metrics.contains("tollgate_profile_cache_hits_total 0\n"))
  }

  @Test("a small cap evicts and still answers right")
  func eviction() throws {
    let cache = ProfileCache(capacity: 3)
    var loads = 0
    func read(_ id: String) throws -> ProfileRecord? {
      try cache.profile(appId: 1, id: id) {
        loads += 1
        return ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0))
      }
    }
    for id in (0..<10).map(String.init) { #expect(try read(id)?.id == id) }
    #expect(cache.figures.entries == 3)
    #expect(cache.figures.evictions == 7)
    #expect(loads == 10)
    #expect(try read("9")?.id == "9")
    #expect(loads == 10, "a recent entry is a hit")
    cache.invalidate(appId: 1, id: "9")
    #expect(try read("9")?.id == "9")
    #expect(loads == 11, "an invalidated entry is read again")
    // A read that started before an invalidation does not put its stale profile back.
    _ = try cache.profile(appId: 1, id: "stale") {
      cache.invalidate(appId: 1, id: "stale")
      return ProfileRecord(id: "stale", version: 1, createdAt: F.date(0), updatedAt: F.date(0))
    }
    var reloaded = false
    _ = try cache.profile(appId: 1, id: "stale") {
      reloaded = true
      return ProfileRecord(id: "stale", version: 2, createdAt: F.date(0), updatedAt: F.date(0))
    }
    #expect(reloaded)
  }

  @Test(
    "two instances on PostgreSQL: a change through one reaches the other's cache by notification",
    .enabled(if: PostgresCluster.url != nil))
  func coherence() async throws {
    let schema = PostgresCluster.freshSchema()
    let firstDatabase = try PostgresCluster.store(schema: schema)
    let first = CachedStore(firstDatabase, capacity: 100)
    let second = try PostgresCluster.cachedStore(schema: schema, capacity: 100)
    defer {
      first.close()
      second.close()
    }
    let app = try first.createApp(name: "coherent")
    let id = "00000000-0000-4000-8000-000000000001"
    _ = try first.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0)))
    // Both listeners are up once the caches stop bypassing.
    for _ in 0..<100 where first.profileCache!.bypass || second.profileCache!.bypass {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(!second.profileCache!.bypass)
    // The cache keeps entries until told otherwise (no expiry), so a change read back here came
    // through the notification. How fast it arrives is a figure for the benchmark, not a test.
    for round in 1...10 {
      _ = try second.profile(appId: app.id, id: id)
      _ = try first.updateProfile(appId: app.id, id: id, at: F.date(0)) { profile in
        profile.customAttributes["round"] = .int(Int64(round))
        return true
      }
      for _ in 0..<500 where try second.profile(appId: app.id, id: id)?.customAttributes["round"] != .int(Int64(round))
      {
        try await Task.sleep(for: .milliseconds(2))
      }
      #expect(try second.profile(appId: app.id, id: id)?.customAttributes["round"] == .int(Int64(round)))
    }

    // The second instance's notification connection dies: it bypasses its cache (reads stay
    // right) until the listener is back.
    let outages = second.profileCache!.figures.outages
    _ = try firstDatabase.with { db in
      try db.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE ? AND pid <> pg_backend_pid()",
        [.text("LISTEN \(ProfileChangeListener.channel)%")])
    }
    for _ in 0..<100 where second.profileCache!.figures.outages == outages || second.profileCache!.bypass {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(second.profileCache!.figures.outages > outages, "the lost connection was noticed")
    #expect(!second.profileCache!.bypass, "the listener reconnects")
    _ = try first.updateProfile(appId: app.id, id: id, at: F.date(0)) { profile in
      profile.customAttributes["round"] = .int(99)
      return true
    }
    for _ in 0..<100 where try second.profile(appId: app.id, id: id)?.customAttributes["round"] != .int(99) {
      try await Task.sleep(for: .milliseconds(2))
    }
    #expect(try second.profile(appId: app.id, id: id)?.customAttributes["round"] == .int(99))
  }
}
