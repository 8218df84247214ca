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

/// Two servers with profile caches on one PostgreSQL: after every kind of change made through
/// one, the other answers the change: caches keep entries until told otherwise, so a change that
/// shows there came through the notification. How soon (100 ms is the bound of record) is timed
/// by the benchmark; a test under a loaded machine only asks that it arrives.
@Suite("Cache coherence across instances", .enabled(if: PostgresCluster.url != nil), .timeLimit(.minutes(5)))
struct CacheCoherenceTests {
  typealias F = StoreKitFixtures

  /// How long a reader waits for a change before calling it lost.
  static let window: Duration = .seconds(2)

  /// Answers a GET through the instance's routes (its caches included), off the Swift
  /// concurrency pool, until `done` holds or `window` passes; returns how long that took.
  func staleness(
    on server: TestServer, _ path: String, key: String, since started: ContinuousClock.Instant,
    until done: @escaping @Sendable (Data) -> Bool
  ) async -> Duration {
    let service = server.server.service
    let (route, query) = Self.split(path)
    return await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        let request = Request(method: "GET", path: route, query: query, headers: ["Authorization": "Api-Key \(key)"])
        while !done(service.handle(request).body), started.duration(to: .now) < Self.window {
          Thread.sleep(forTimeInterval: 0.001)
        }
        continuation.resume(returning: started.duration(to: .now))
      }
    }
  }

  static func split(_ path: String) -> (String, [String: String]) {
    let parts = path.split(separator: "?", maxSplits: 1)
    var query: [String: String] = [:]
    for pair in parts.dropFirst().first?.split(separator: "&") ?? [] {
      let kv = pair.split(separator: "=", maxSplits: 1)
      query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
    }
    return (String(parts[0]), query)
  }

  static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

  @Test("create, PATCH, attribution, purchase and config import through one instance reach the other")
  func everyChangeReachesTheOther() async throws {
    let schema = PostgresCluster.freshSchema()
    let time = ManualTime(F.date(0))
    let signer = try StoreKitSigner(appleNames: false)
    let verifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    let a = try TestServer(
      time: time, store: PostgresCluster.cachedStore(schema: schema, capacity: 1_000), appStoreVerifier: verifier)
    let b = try TestServer(
      time: time, store: PostgresCluster.cachedStore(schema: schema, capacity: 1_000), appStoreVerifier: verifier)
    defer {
      a.stop()
      b.stop()
    }
    for server in [a, b] {
      for _ in 0..<200 where server.server.store.cache!.profileCache.bypass {
        try await Task.sleep(for: .milliseconds(10))
      }
    }
    try await a.applySampleConfig()
    try b.server.service.refreshConfigs()
    let id = UUID().uuidString.lowercased()
    let profilePath = RoutePaths.profile(id)
    var windows: [String: Duration] = [:]

    // Creation: b looked first (404, nothing cached), then a creates.
    #expect(try await b.sdk("GET", profilePath, key: b.sdkKey).status == 404)
    _ = try await a.createProfile(id, install: #"{"app_version":"2.1.0","store_country":"USA"}"#)
    windows["create"] = await staleness(on: b, profilePath, key: b.sdkKey, since: .now) {
      Self.text($0).contains(#""id":"\#(id)""#)
    }

    // Both caches now hold the profile; a PATCH through a must replace b's copy.
    let flowPath = "/v1/sdk/placements/onboarding/flow?profile_id=\(id)"
    _ = try await b.sdk("GET", flowPath, key: b.sdkKey)
    #expect(
      try await a.sdk("PATCH", profilePath, json: #"{"custom_attributes":{"sessions":42}}"#).status == 200)
    var started = ContinuousClock.now
    windows["patch"] = await staleness(on: b, profilePath, key: b.sdkKey, since: started) {
      Self.text($0).contains(#""sessions":42"#)
    }
    // The placement answer reads the cached targeting view: it too must see the new value.
    windows["patch (targeting view)"] = await staleness(
      on: b, "/v1/sdk/placements/settings_upgrade/flow?profile_id=\(id)", key: b.sdkKey, since: started
    ) { Self.text($0).contains(#""audience_id":"power_users""#) }

    // Attribution applied by a's worker: b's placement answer moves to the Apple Ads audience.
    let token = "sbx|campaign=542370539"
    _ = try await a.sdk(
      "POST", RoutePaths.appleAdsAttribution(id),
      json: Self.text(WireCoding.encode(AppleAdsTokenRequest(token: token))))
    await a.attributionPass()
    started = .now
    windows["attribution"] = await staleness(on: b, flowPath, key: b.sdkKey, since: started) {
      Self.text($0).contains(#""audience_id":"apple_ads_brand""#)
    }

    // A purchase through a: b's profile shows the access level.
    let jws = try signer.sign(
      json: F.object(F.transaction("9001", original: "9001", purchased: 0, expires: 30, token: id)))
    #expect(
      try await a.sdk(
        "POST", RoutePaths.transactions(id),
        json: Self.text(WireCoding.encode(TransactionRequest(signedTransaction: jws)))
      ).status == 200)
    started = .now
    windows["purchase"] = await staleness(on: b, profilePath, key: b.sdkKey, since: started) {
      (try? WireCoding.decoder.decode(ProfilePayload.self, from: $0))?.accessLevels["premium"]?.isActive == true
    }

    // A config import through a: b serves the new revision (announced, not polled).
    let document = try String(
      contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"), encoding: .utf8)
    #expect(try await a.admin("PUT", "/v1/admin/config", json: document).status == 200)
    started = .now
    windows["config"] = await staleness(
      on: b, "/v1/sdk/placements/onboarding/default", key: b.sdkKey, since: started
    ) { Self.text($0).contains(#""revision":2"#) }

    for (change, window) in windows.sorted(by: { $0.key < $1.key }) {
      #expect(window < Self.window, "\(change) never reached the other instance")
    }
    // And the instance that made each change answers it at once.
    let own = try await a.sdk("GET", profilePath).decode(ProfilePayload.self)
    #expect(own.customAttributes["sessions"] == .int(42))
    #expect(own.appliedAttributionSources == ["apple_ads"])
    #expect(own.accessLevels["premium"]?.isActive == true)
  }

  @Test("a saved list replaced through one instance changes whom the other's rule targets (announced, not polled)")
  func savedListReachesTheOther() async throws {
    let schema = PostgresCluster.freshSchema()
    let time = ManualTime(F.date(0))
    let a = try TestServer(time: time, store: PostgresCluster.cachedStore(schema: schema, capacity: 1_000))
    let b = try TestServer(time: time, store: PostgresCluster.cachedStore(schema: schema, capacity: 1_000))
    defer {
      a.stop()
      b.stop()
    }
    for server in [a, b] {
      for _ in 0..<200 where server.server.store.cache!.profileCache.bypass {
        try await Task.sleep(for: .milliseconds(10))
      }
    }
    func putList(_ body: String) async throws -> Int {
      try await a.send(
        "PUT", "/v1/admin/lists/churned_q3", key: a.adminKey, scheme: "Bearer", body: Data(body.utf8),
        contentType: "text/plain"
      ).status
    }
    #expect(try await putList("user-1\n") == 201)
    #expect(try await a.admin("PUT", "/v1/admin/config", json: SavedListTests.listConfig).status == 200)
    let id = try await a.createProfile()
    #expect(try await a.sdk("PATCH", RoutePaths.profile(id), json: #"{"customer_user_id":"user-2"}"#).status == 200)
    let flowPath = "/v1/sdk/placements/main/flow?profile_id=\(id)"
    var windows: [String: Duration] = [:]
    windows["config"] = await staleness(on: b, flowPath, key: b.sdkKey, since: .now) {
      Self.text($0).contains(#""id":"standard""#)
    }
    #expect(try await putList("user-1\nuser-2\n") == 200)
    let started = ContinuousClock.now
    windows["list"] = await staleness(on: b, flowPath, key: b.sdkKey, since: started) {
      Self.text($0).contains(#""id":"winback""#)
    }
    for (change, window) in windows.sorted(by: { $0.key < $1.key }) {
      #expect(window < Self.window, "\(change) never reached the other instance")
    }
  }
}
