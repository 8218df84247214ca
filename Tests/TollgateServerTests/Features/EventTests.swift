import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("Events and stats")
struct EventTests {
  @Test("flow_shown events count per audience and variation; retried ids count once")
  func impressions() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    let shown =
      #"{"type":"flow_shown","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"onboarding:default:standard""#
    let batch = #"{"events":[\#(shown),"event_id":"e1"},\#(shown),"event_id":"e2"},\#(shown)}]}"#
    let first = try await server.sdk("POST", "/v1/sdk/events", json: batch)
    #expect(first.status == 200)
    #expect(try first.decode(EventBatchResponse.self) == EventBatchResponse(accepted: 3, duplicates: 0))
    let retry = try await server.sdk("POST", "/v1/sdk/events", json: #"{"events":[\#(shown),"event_id":"e1"}]}"#)
    #expect(try retry.decode(EventBatchResponse.self) == EventBatchResponse(accepted: 0, duplicates: 1))

    let stats = try await server.admin("GET", "/v1/admin/stats/placements/onboarding")
    #expect(stats.status == 200)
    let report = try stats.decode(PlacementReport.self)
    #expect(report.audiences.map(\.audienceId) == ["default"])
    let row = try #require(report.audiences.first?.variations.first)
    #expect(row.variationId == "onboarding:default:standard")
    #expect(row.flowId == "standard")
    #expect(row.impressions == 3)
    #expect(row.uniqueViewers == 1)
    #expect(row.purchasers == 0)
    #expect(try await server.admin("GET", "/v1/admin/stats/placements/nope").errorCode == "placement_not_found")
  }

  @Test("a batch with a bad event is rejected whole with the path of each problem")
  func badBatch() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    try await server.applySampleConfig()
    let id = try await server.createProfile()
    let batch = #"""
      {"events":[
        {"type":"flow_shown","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"onboarding:default:standard"},
        {"type":"flow_clicked","profile_id":"\#(id)","placement_id":"onboarding","variation_id":"onboarding:default:standard"},
        {"type":"flow_shown","profile_id":"\#(UUID().uuidString)","placement_id":"onboarding","variation_id":"onboarding:default:standard"},
        {"type":"flow_shown","profile_id":"\#(id)","placement_id":"settings_upgrade","variation_id":"onboarding:default:standard"}
      ]}
      """#
    let result = try await server.sdk("POST", "/v1/sdk/events", json: batch)
    #expect(result.status == 422)
    #expect(result.errorPaths == ["$.events[1].type", "$.events[2].profile_id", "$.events[3].variation_id"])
    let stats = try await server.admin("GET", "/v1/admin/stats/placements/onboarding")
    #expect(try stats.decode(PlacementReport.self).audiences.isEmpty)
    #expect(try await server.sdk("POST", "/v1/sdk/events", json: #"{"events":[]}"#).status == 422)
  }
}
