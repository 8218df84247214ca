import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("Configuration documents")
struct ConfigTests {
  @Test("a valid document is applied as the next revision and read back")
  func applyAndRead() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    #expect(try await server.admin("GET", "/v1/admin/config").errorCode == "config_not_found")
    try await server.applySampleConfig()
    let again = try await server.admin(
      "PUT", "/v1/admin/config",
      json: try String(
        contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"), encoding: .utf8))
    #expect(again.json?.objectValue?["revision"] == .int(2))
    #expect(again.json?.objectValue?["placements"] == .array([.string("onboarding"), .string("settings_upgrade")]))
    let read = try await server.admin("GET", "/v1/admin/config")
    let object = try #require(read.json?.objectValue)
    #expect(object["revision"] == .int(2))
    let sample = try WireCoding.decoder.decode(
      JSONValue.self, from: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
    #expect(object["document"] == sample)
    let app = try await server.admin("GET", "/v1/admin/app")
    #expect(app.json == .object(["name": .string("alpha"), "revision": .int(2)]))
  }

  @Test("every problem is reported with its JSON path, and nothing changes")
  func validationPaths() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let document = #"""
      {
        "flows": [{"id": "a", "products": ["p"]}, {"id": "a"}, {"id": "bad id!"}, {"id": "c", "remote_config": []}],
        "audiences": [
          {"id": "aa", "rule": {"attribution.sources": {"$in": "apple_ads"}}},
          {"id": "bb", "rule": {"nonsense.attr": 1}},
          {"id": "default", "rule": {}}
        ],
        "placements": [
          {"id": "p1", "default": "missing", "targets": [
            {"audience": "aa", "experiment": {"name": "t", "variations": [{"flow": "a", "weight": 60}, {"flow": "c", "weight": 30}]}},
            {"audience": "ghost", "flow": "a"},
            {"audience": "aa", "flow": "a", "experiment": {}}
          ]},
          {"id": "p1", "default": "a", "colour": "red"}
        ],
        "extra": 1
      }
      """#
    let result = try await server.admin("PUT", "/v1/admin/config", json: document)
    #expect(result.status == 422)
    #expect(result.errorCode == "invalid_config")
    let expected: Set<String> = [
      "$.extra",
      "$.flows[1].id",
      "$.flows[2].id",
      "$.flows[3].remote_config",
      "$.audiences[0].rule.attribution.sources.$in",
      "$.audiences[1].rule.nonsense.attr",
      "$.audiences[2].id",
      "$.placements[0].default",
      "$.placements[0].targets[0].experiment.variations",
      "$.placements[0].targets[1].audience",
      "$.placements[0].targets[2].audience",
      "$.placements[0].targets[2]",
      "$.placements[1].id",
      "$.placements[1].colour",
    ]
    #expect(Set(result.errorPaths) == expected)
    let app = try await server.admin("GET", "/v1/admin/app")
    #expect(app.json?.objectValue?["revision"] == .int(1))
  }

  @Test("weights must be whole percentages summing to 100")
  func weights() throws {
    let base =
      #"{"flows":[{"id":"a"},{"id":"b"}],"audiences":[{"id":"all","rule":{}}],"placements":[{"id":"p","default":"a","targets":[{"audience":"all","experiment":{"name":"t","variations":[VARS]}}]}]}"#
    func problems(_ variations: String) -> [String] {
      do {
        _ = try ConfigValidator.compile(Data(base.replacingOccurrences(of: "VARS", with: variations).utf8), revision: 1)
        return []
      } catch {
        return error.error.details?.map(\.path) ?? ["<no details>"]
      }
    }
    #expect(problems(#"{"flow":"a","weight":50},{"flow":"b","weight":50}"#) == [])
    #expect(
      problems(#"{"flow":"a","weight":50},{"flow":"b","weight":49}"#) == [
        "$.placements[0].targets[0].experiment.variations"
      ])
    #expect(
      problems(#"{"flow":"a","weight":50.5},{"flow":"b","weight":49.5}"#).contains(
        "$.placements[0].targets[0].experiment.variations[0].weight"))
    #expect(
      problems(#"{"flow":"a","weight":150},{"flow":"b","weight":-50}"#).contains(
        "$.placements[0].targets[0].experiment.variations[1].weight"))
    #expect(
      problems(#"{"flow":"a","weight":50},{"flow":"a","weight":50}"#) == [
        "$.placements[0].targets[0].experiment.variations[1].flow"
      ])
  }

  @Test("an optional section set to null is the section left out, as the API document says")
  func nullSections() throws {
    let document = #"""
      {"flows":[{"id":"a"}],"placements":[{"id":"p","default":"a","targets":null}],"audiences":null,
       "app_store":null,"access_levels":null,"reporting":null,"webhooks":null,"settings":null}
      """#
    let config = try ConfigValidator.compile(Data(document.utf8), revision: 1)
    #expect(config.appStore == nil)
    #expect(config.webhooks.isEmpty)
    do {
      _ = try ConfigValidator.compile(Data(#"{"flows":null,"placements":[]}"#.utf8), revision: 1)
      Issue.record("a required section set to null was accepted")
    } catch {
      #expect(error.error.details?.map(\.path) == ["$.flows"])
    }
  }

  @Test("malformed config JSON is 400, a non-JSON media type 415")
  func malformed() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    #expect(try await server.admin("PUT", "/v1/admin/config", json: "{flows").status == 400)
    let text = try await server.send(
      "PUT", "/v1/admin/config", key: server.adminKey, scheme: "Bearer", body: Data("{}".utf8),
      contentType: "text/plain")
    #expect(text.status == 415)
  }

  @Test("an import made by another process is served after the next refresh")
  func importFromAnotherProcess() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    #expect(try await server.sdk("GET", "/v1/sdk/placements/onboarding/default").status == 200)
    // A second store on the same file stands for `tollgate import` running beside the server.
    let other = try SQLiteStore(path: server.databasePath, connections: 1)
    let config = try ConfigImporter(database: other).apply(
      Data(#"{"flows":[{"id":"fresh"}],"placements":[{"id":"onboarding","default":"fresh"}]}"#.utf8),
      appId: server.alpha.app.id)
    other.close()
    #expect(config.revision == 2)
    try server.server.service.refreshConfigs()
    let served = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default")
    let response = try served.decode(PlacementFlowResponse.self)
    #expect(response.flow.id == "fresh")
    #expect(response.placement.revision == 2)
  }
}
