import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateServer

@Suite("Persistence")
struct PersistenceTests {
  @Test("profiles, config and events survive a stop and a start on the same file")
  func restart() async throws {
    let directory = temporaryDirectory()
    var server = try TestServer(directory: directory, mode: .inProcess)
    try await server.applySampleConfig()
    let id = try await server.createProfile(install: #"{"locale":"fr"}"#)
    _ = try await server.sdk("PATCH", "/v1/sdk/profiles/\(id)", json: #"{"custom_attributes":{"sessions":3}}"#)
    let before = try await server.sdk("GET", "/v1/sdk/profiles/\(id)").decode(ProfilePayload.self)
    let event =
      #"{"events":[{"type":"flow_shown","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"onboarding:default:standard","event_id":"x"}]}"#
    #expect(try await server.sdk("POST", "/v1/sdk/events", json: event).status == 200)
    server.stop()
    // A clean stop checkpoints the write-ahead log into the database file.
    let wal = try? FileManager.default.attributesOfItem(atPath: server.databasePath + "-wal")
    #expect((wal?[.size] as? Int ?? 0) == 0)

    server = try TestServer(directory: directory, mode: .inProcess)
    defer { server.stop() }
    let after = try await server.sdk("GET", "/v1/sdk/profiles/\(id)").decode(ProfilePayload.self)
    #expect(after == before)
    let config = try await server.admin("GET", "/v1/admin/config")
    #expect(config.json?.objectValue?["revision"] == .int(1))
    let retry = try await server.sdk("POST", "/v1/sdk/events", json: event)
    #expect(try retry.decode(EventBatchResponse.self).duplicates == 1)
  }

  @Test("a database that cannot be opened is a clear error")
  func unopenable() throws {
    let directory = temporaryDirectory()
    let notADatabase = directory.appendingPathComponent("garbage.sqlite")
    try Data(repeating: 0x42, count: 4096).write(to: notADatabase)
    #expect(throws: StoreError.self) { try SQLiteStore(path: notADatabase.path) }
  }
}
