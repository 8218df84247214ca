import Dispatch
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

  static func uuid(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

  @Test("a small cap evicts and still answers right")
  func eviction() throws {
    let cache = ProfileCache(capacity: 3)
    let schema = TargetingSchema(reading: ["custom.n"], accessLevels: [])
    var loads = 0
    func read(_ n: Int, version: Int64 = 1) throws -> TargetingView? {
      try cache.view(appId: 1, id: Self.uuid(n), schema: schema) {
        loads += 1
        return (
          ProfileRecord(
            id: Self.uuid(n), version: version, customAttributes: ["n": .int(Int64(n) * version)],
            createdAt: F.date(0), updatedAt: F.date(0)), [:]
        )
      }
    }
    func n(_ view: TargetingView?) -> JSONValue? { view?.value(of: "custom.n", schema: schema, now: F.date(0)) }
    for id in 0..<10 { #expect(n(try read(id)) == .int(Int64(id))) }
    #expect(cache.figures.entries == 3)
    #expect(cache.figures.evictions == 7)
    #expect(loads == 10)
    #expect(n(try read(9)) == .int(9))
    #expect(loads == 10, "a recent entry is a hit")
    cache.invalidate(appId: 1, id: Self.uuid(9))
    #expect(n(try read(9)) == .int(9))
    #expect(loads == 11, "an invalidated entry is read again")
    // A read that started before an invalidation does not put its stale profile back.
    _ = try cache.view(appId: 1, id: Self.uuid(50), schema: schema) {
      cache.invalidate(appId: 1, id: Self.uuid(50))
      return (ProfileRecord(id: Self.uuid(50), createdAt: F.date(0), updatedAt: F.date(0)), [:])
    }
    #expect(n(try read(50, version: 2)) == .int(100), "the stale read was not kept")
    // Another schema (the configuration's rules changed) reads the profile again.
    let other = TargetingSchema(reading: ["custom.m"], accessLevels: [])
    let before = loads
    _ = try cache.view(appId: 1, id: Self.uuid(50), schema: other) {
      loads += 1
      return (ProfileRecord(id: Self.uuid(50), createdAt: F.date(0), updatedAt: F.date(0)), [:])
    }
    #expect(loads == before + 1)
  }

  @Test("packed storage finds, replaces and removes exactly like a dictionary over random operations")
  func packedStorage() throws {
    var packed = PackedProfiles(capacity: 64)
    var reference: [PackedKey: [UInt8]] = [:]
    var random = Seeded(state: 7)
    // Few distinct keys in a small table: long probe runs, many backward shifts.
    let keys = (0..<96).map { PackedKey(appId: Int64($0 % 2), id: Self.uuid($0))! }
    for step in 0..<20_000 {
      let key = keys.randomElement(using: &random)!
      let length = [3, 32, 33, 70].randomElement(using: &random)!
      let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &+ step) }
      if let index = packed.find(key) {
        #expect(packed.read(index).bytes.array == reference[key], "step \(step)")
        if Bool.random(using: &random) {
          packed.remove(index)
          reference[key] = nil
        } else {
          packed.write(index, schema: 1, bytes: bytes)
          reference[key] = bytes
        }
      } else {
        #expect(reference[key] == nil, "step \(step)")
        if packed.count == packed.capacity {
          // CLOCK evicts one; the reference learns which by asking for every key.
          packed.insert(key, schema: 1, bytes: bytes)
          reference = reference.filter { packed.find($0.key) != nil }
        } else {
          packed.insert(key, schema: 1, bytes: bytes)
        }
        reference[key] = bytes
      }
      #expect(packed.count == reference.count)
    }
    for (key, bytes) in reference {
      let index = try #require(packed.find(key))
      #expect(packed.read(index).bytes.array == bytes)
    }
    #expect(packed.overflowCount == reference.values.filter { $0.count > PackedBytes.inlineCapacity }.count)
  }

  @Test("stored and new assignments are packed with the profile and read back")
  func packedAssignments() throws {
    let cache = ProfileCache(capacity: 10)
    let schema = TargetingSchema(reading: ["locale"], accessLevels: [])
    let id = Self.uuid(1)
    let onboarding = ProfileCache.Slot(placementId: "onboarding", audienceId: "apple_ads_brand")
    _ = try cache.view(appId: 1, id: id, schema: schema) {
      (
        ProfileRecord(id: id, install: InstallMeta(locale: "fr_FR"), createdAt: F.date(0), updatedAt: F.date(0)),
        [onboarding: "onboarding:apple_ads_brand:brand_a"]
      )
    }
    func key(_ placement: String, _ audience: String) -> AssignmentKey {
      AssignmentKey(appId: 1, profileId: id, placementId: placement, audienceId: audience)
    }
    let unread: () throws -> String? = {
      Issue.record("a held profile knows its assignments"); return nil
    }
    #expect(
      try cache.assignment(key("onboarding", "apple_ads_brand"), load: unread) == "onboarding:apple_ads_brand:brand_a")
    #expect(try cache.assignment(key("settings", "power_users"), load: unread) == nil, "absent means none")
    cache.remember(key("settings", "power_users"), "settings:power_users:b", unwritten: true)
    #expect(try cache.assignment(key("settings", "power_users"), load: unread) == "settings:power_users:b")
    let view = try #require(try cache.view(appId: 1, id: id, schema: schema) { nil })
    #expect(view.locale(schema) == "fr_FR", "the values survive the re-pack")
    #expect(cache.figures.hits == 1)
  }

  @Test("a profile of the sample configuration, with 5 experiments on average, takes at most 100 bytes in the cache")
  func bytesPerProfile() throws {
    let capacity = 100_000
    let cache = ProfileCache(capacity: capacity)
    let document = try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    let schema = try ConfigValidator.compile(document, revision: 1).targeting
    var random = Seeded(state: 3)
    var page: [(appId: Int64, profile: ProfileRecord, assignments: [ProfileCache.Slot: String])] = []
    // More than it holds: the cache is split in shards by key hash, each fills on its own.
    for n in 0..<capacity * 5 / 4 {
      var profile = ProfileRecord(
        id: UUID().uuidString.lowercased(), customerUserId: "user-\(n)",
        install: InstallMeta(
          appVersion: ["2.3.1", "2.4.0", "1.9.7"].randomElement(using: &random)!, osVersion: "18.1",
          deviceModel: "iPhone16,2", locale: ["en_US", "fr_FR", "de_DE", "ja_JP"].randomElement(using: &random)!,
          storeCountry: "USA"),
        customAttributes: ["sessions": .int(Int64.random(in: 0...60, using: &random))],
        createdAt: F.date(Double(n % 300)), updatedAt: F.date(0))
      var assignments: [ProfileCache.Slot: String] = [:]
      if n % 3 == 0 {
        profile.appliedSources = ["apple_ads"]
        assignments[.init(placementId: "onboarding", audienceId: "apple_ads_brand")] =
          "onboarding:apple_ads_brand:onboarding_\(n % 2 == 0 ? "a" : "b")"
      }
      // And 0 to 10 experiments elsewhere (5 on average), as in an app that runs many.
      for placement in 0..<(n % 11) {
        assignments[.init(placementId: "p\(placement)", audienceId: "everyone")] =
          "p\(placement):everyone:flow_\(n % 2 == 0 ? "a" : "b")"
      }
      page.append((1, profile, assignments))
    }
    #expect(cache.fill(page, since: cache.mark(), schema: { _ in schema }) == false, "full")
    let footprint = cache.footprint
    let perProfile = Double(footprint.bytes) / Double(capacity)
    #expect(cache.figures.entries == capacity)
    #expect(perProfile <= 100, "\(perProfile) bytes per profile")
    #expect(footprint.overflowed < capacity / 10, "\(footprint.overflowed) did not fit inline")
  }

  @Test(
    "two instances on PostgreSQL: a change through one reaches the other's cache by notification",
    .enabled(if: PostgresCluster.url != nil))
  func coherence() async throws {
    let schema = PostgresCluster.freshSchema()
    let firstDatabase = try PostgresCluster.store(schema: schema)
    let first = CachedStore(firstDatabase, capacity: 100)
    let second = try #require(try PostgresCluster.cachedStore(schema: schema, capacity: 100).cache)
    defer {
      first.close()
      second.close()
    }
    let app = try firstDatabase.createApp(name: "coherent")
    let id = "00000000-0000-4000-8000-000000000001"
    _ = try first.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: F.date(0), updatedAt: F.date(0)))
    // Both listeners are up once the caches stop bypassing.
    for _ in 0..<100 where first.profileCache.bypass || second.profileCache.bypass {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(!second.profileCache.bypass)
    // The cache keeps entries until told otherwise (no expiry), so a change read back here came
    // through the notification. How fast it arrives is a figure for the benchmark, not a test.
    let targeting = TargetingSchema(reading: ["custom.round"], accessLevels: [])
    func seen() throws -> JSONValue? {
      try second.targetingView(appId: app.id, id: id, schema: targeting)?.value(
        of: "custom.round", schema: targeting, now: F.date(0))
    }
    for round in 1...10 {
      _ = try second.targetingView(appId: app.id, id: id, schema: targeting)
      _ = try first.updateProfile(appId: app.id, id: id, at: F.date(0)) { profile in
        profile.customAttributes["round"] = .int(Int64(round))
        return true
      }
      for _ in 0..<500 where try seen() != .int(Int64(round)) { try await Task.sleep(for: .milliseconds(2)) }
      #expect(try seen() == .int(Int64(round)))
    }
    #expect(second.profileCache.figures.hits > 0, "the view was read from memory between changes")

    // The second instance's notification connection dies: it bypasses its cache (reads stay
    // right) until the listener is back.
    let outages = second.profileCache.figures.outages
    _ = try firstDatabase.with { db in
      try db.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE ? AND pid <> pg_backend_pid()",
        [.text("LISTEN \(ProfileChangeListener.channel)%")])
    }
    for _ in 0..<100 where second.profileCache.figures.outages == outages || second.profileCache.bypass {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(second.profileCache.figures.outages > outages, "the lost connection was noticed")
    #expect(!second.profileCache.bypass, "the listener reconnects")
    _ = try first.updateProfile(appId: app.id, id: id, at: F.date(0)) { profile in
      profile.customAttributes["round"] = .int(99)
      return true
    }
    for _ in 0..<100 where try seen() != .int(99) { try await Task.sleep(for: .milliseconds(2)) }
    #expect(try seen() == .int(99))
  }
}
