import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// What an operator does: rotate keys, read the history and roll back, read the audit log.
@Suite("Keys, configuration history and audit log")
struct OperatorTests {
  func text(_ value: some Encodable) -> String { String(decoding: WireCoding.encode(value), as: UTF8.self) }

  func keys(_ server: TestServer) async throws -> [JSONValue] {
    try await server.admin("GET", "/v1/admin/keys").json?.objectValue?["keys"]?.arrayValue ?? []
  }

  @Test("keys are created, listed and revoked; a revoked key is refused here at once and elsewhere within a second")
  func keyLifecycle() async throws {
    let time = ManualTime()
    let a = try TestServer(time: time, mode: .inProcess)
    // A second server process on the same database file, with its own key cache.
    let b = try TestServer(directory: a.directory, time: time, mode: .inProcess)
    defer {
      a.stop()
      b.stop()
    }
    let created = try await a.admin("POST", "/v1/admin/keys", json: #"{"kind":"public","label":"iOS 2.0"}"#)
    #expect(created.status == 201)
    let body = try #require(created.json?.objectValue)
    let key = try #require(body["key"]?.stringValue)
    let id = try #require(body["id"]?.stringValue)
    #expect(key.hasPrefix("tg_pub_"))
    #expect(id == KeyRecord.id(hash: KeyIssuer.hash(key)))
    #expect(body["label"] == .string("iOS 2.0"))

    // Both instances take it; b now has it cached.
    #expect(try await a.createProfile(key: key).isEmpty == false)
    #expect(try await b.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)", key: key).errorCode == "profile_not_found")

    // Listed without the key itself; its use is recorded.
    let listed = try await keys(a).first { $0.objectValue?["id"] == .string(id) }?.objectValue
    #expect(listed?["key"] == nil)
    #expect(listed?["last_used_at"]?.stringValue == Timestamp.string(time.now()))

    let revoked = try await a.admin("DELETE", "/v1/admin/keys/\(id)")
    #expect(revoked.status == 200)
    #expect(revoked.json?.objectValue?["revoked_at"]?.stringValue == Timestamp.string(time.now()))
    #expect(try await a.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)", key: key).errorCode == "key_revoked")
    // b checks its cached entry again once it is older than half a second.
    time.advance(days: 1.0 / 86_400)
    let refused = try await b.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)", key: key)
    #expect(refused.status == 401)
    #expect(refused.errorCode == "key_revoked")
    // The other keys still work; revoking again keeps the first time.
    #expect(try await b.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)").errorCode == "profile_not_found")
    let again = try await a.admin("DELETE", "/v1/admin/keys/\(id)")
    #expect(again.json?.objectValue?["revoked_at"] == revoked.json?.objectValue?["revoked_at"])
    #expect(try await a.admin("DELETE", "/v1/admin/keys/key_0000000000000000").errorCode == "key_not_found")

    // The last secret key stays; once there is another, it can go. (b issued the app a
    // secret key of its own when it started: that one goes first.)
    let otherSecret = KeyRecord.id(hash: KeyIssuer.hash(b.adminKey))
    #expect(try await a.admin("DELETE", "/v1/admin/keys/\(otherSecret)").status == 200)
    let secretId = KeyRecord.id(hash: KeyIssuer.hash(a.adminKey))
    let last = try await a.admin("DELETE", "/v1/admin/keys/\(secretId)")
    #expect(last.status == 409)
    #expect(last.errorCode == "last_secret_key")
    let second = try await a.admin("POST", "/v1/admin/keys", json: #"{"kind":"secret"}"#)
    let secondKey = try #require(second.json?.objectValue?["key"]?.stringValue)
    #expect(try await a.admin("DELETE", "/v1/admin/keys/\(secretId)", key: secondKey).status == 200)
    #expect(try await a.admin("GET", "/v1/admin/keys").errorCode == "key_revoked")

    // Bad input.
    #expect(try await a.admin("POST", "/v1/admin/keys", json: #"{"kind":"root"}"#, key: secondKey).status == 422)
    #expect(try await a.admin("POST", "/v1/admin/keys", json: #"{"label":"x"}"#, key: secondKey).status == 400)

    // The audit log names who did what, newest first.
    let secondId = KeyRecord.id(hash: KeyIssuer.hash(secondKey))
    let entries = try #require(
      try await a.admin("GET", "/v1/admin/audit", key: secondKey).json?.objectValue?["entries"]?.arrayValue)
    let actions = entries.compactMap { $0.objectValue?["action"]?.stringValue }
    let actors = entries.compactMap { $0.objectValue?["actor"]?.stringValue }
    #expect(Array(actions.prefix(5)) == ["key.revoked", "key.created", "key.revoked", "key.revoked", "key.created"])
    #expect(Array(actors.prefix(5)) == [secondId, secretId, secretId, secretId, secretId])
    guard case .int(let newest)? = entries.first?.objectValue?["seq"] else {
      Issue.record("entries carry their seq")
      return
    }
    let page = try await a.admin("GET", "/v1/admin/audit?limit=1&before=\(newest)", key: secondKey)
    #expect(page.json?.objectValue?["entries"]?.arrayValue == [entries[1]])
  }

  @Test("last_used_at is written at most once a minute per key")
  func lastUsedResolution() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let first = server.time.now()
    func lastUsed() async throws -> JSONValue? {
      let id = KeyRecord.id(hash: KeyIssuer.hash(server.sdkKey))
      return try await keys(server).first { $0.objectValue?["id"] == .string(id) }?.objectValue?["last_used_at"]
    }
    _ = try await server.createProfile()
    #expect(try await lastUsed() == .string(Timestamp.string(first)))
    server.time.advance(days: 30.0 / 86_400)
    _ = try await server.createProfile()
    #expect(try await lastUsed() == .string(Timestamp.string(first)), "not rewritten within the minute")
    server.time.advance(days: 31.0 / 86_400)
    _ = try await server.createProfile()
    #expect(try await lastUsed() == .string(Timestamp.string(server.time.now())))
  }

  @Test("every applied revision is kept with who applied it and what changed; a rollback is a new revision")
  func historyAndRollback() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let sample = try #require(try await server.admin("GET", "/v1/admin/config").json?.objectValue?["document"])
    guard case .object(var edited) = sample, case .array(let placements)? = edited["placements"] else {
      Issue.record("the sample config has placements")
      return
    }
    edited["placements"] = .array(placements.filter { $0.objectValue?["id"] != .string("settings_upgrade") })
    #expect(try await server.admin("PUT", "/v1/admin/config", json: text(JSONValue.object(edited))).status == 200)
    #expect(try await server.sdk("GET", "/v1/sdk/placements/settings_upgrade/default").status == 404)

    let history = try #require(
      try await server.admin("GET", "/v1/admin/config/history").json?.objectValue?["revisions"]?.arrayValue)
    #expect(history.count == 2)
    let latest = try #require(history.first?.objectValue)
    #expect(latest["revision"] == .int(2))
    #expect(latest["current"] == .bool(true))
    #expect(latest["summary"] == .string("placements -settings_upgrade"))
    #expect(latest["applied_by"] == .string(KeyRecord.id(hash: KeyIssuer.hash(server.adminKey))))
    #expect(history.last?.objectValue?["summary"] == .string("first configuration"))

    let shown = try await server.admin("GET", "/v1/admin/config/revisions/1")
    #expect(shown.json?.objectValue?["document"] == sample)
    #expect(try await server.admin("GET", "/v1/admin/config/revisions/9").errorCode == "revision_not_found")

    let rolled = try await server.admin("POST", "/v1/admin/config/rollback", json: #"{"revision":1}"#)
    #expect(rolled.status == 200)
    #expect(rolled.json?.objectValue?["revision"] == .int(3))
    let served = try await server.sdk("GET", "/v1/sdk/placements/settings_upgrade/default")
    #expect(try served.decode(PlacementFlowResponse.self).placement.revision == 3)
    let after = try #require(
      try await server.admin("GET", "/v1/admin/config/history").json?.objectValue?["revisions"]?.arrayValue)
    #expect(after.map { $0.objectValue?["revision"] } == [.int(3), .int(2), .int(1)])
    #expect(after.first?.objectValue?["summary"] == .string("rollback to 1: placements +settings_upgrade"))
    #expect(try await server.admin("POST", "/v1/admin/config/rollback", json: #"{"revision":99}"#).status == 404)
    #expect(try await server.admin("POST", "/v1/admin/config/rollback", json: #"{"rev":1}"#).status == 400)

    let actions = try #require(
      try await server.admin("GET", "/v1/admin/audit").json?.objectValue?["entries"]?.arrayValue
    ).compactMap { $0.objectValue?["action"]?.stringValue }
    #expect(Array(actions.prefix(3)) == ["config.rolled_back", "config.applied", "config.applied"])
  }
}
