import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

struct BucketingCase: Decodable, Sendable {
  let placementId: String
  let audienceId: String
  let profileId: String
  let bucket: Int
  let weights: [Int]
  let variationIndex: Int

  enum CodingKeys: String, CodingKey {
    case bucket, weights
    case placementId = "placement_id"
    case audienceId = "audience_id"
    case profileId = "profile_id"
    case variationIndex = "variation_index"
  }

  static let all: [BucketingCase] = {
    struct File: Decodable { let cases: [BucketingCase] }
    let url = repositoryRoot.appendingPathComponent("Fixtures/bucketing/cases.json")
    return (try? WireCoding.decoder.decode(File.self, from: Data(contentsOf: url)).cases) ?? []
  }()
}

@Suite("Experiments and bucketing")
struct ExperimentTests {
  @Test("buckets and variations match the shared fixture (computed by an independent implementation)")
  func fixture() {
    #expect(BucketingCase.all.count >= 10)
    for item in BucketingCase.all {
      let bucket = Bucketing.bucket(
        placementId: item.placementId, audienceId: item.audienceId, profileId: item.profileId)
      #expect(bucket == item.bucket, "\(item.profileId)")
      #expect(Bucketing.variationIndex(bucket: bucket, weights: item.weights) == item.variationIndex)
    }
  }

  @Test("weights split 10 000 profiles within one percentage point")
  func distribution() {
    var counts = [0, 0, 0]
    for index in 0..<10_000 {
      let bucket = Bucketing.bucket(placementId: "p", audienceId: "a", profileId: "profile-\(index)")
      counts[Bucketing.variationIndex(bucket: bucket, weights: [20, 30, 50])] += 1
    }
    #expect(abs(counts[0] - 2_000) < 100 && abs(counts[1] - 3_000) < 100 && abs(counts[2] - 5_000) < 100, "\(counts)")
  }

  static func config(weights: (Int, Int)) -> String {
    #"{"flows":[{"id":"a"},{"id":"b"}],"audiences":[{"id":"all","name":"Everyone","rule":{}}],"placements":[{"id":"p","default":"a","targets":[{"audience":"all","experiment":{"name":"Price test","variations":[{"flow":"a","weight":\#(weights.0)},{"flow":"b","weight":\#(weights.1)}]}}]}]}"#
  }

  @Test("assignments survive weight changes and restarts")
  func stickyAssignments() async throws {
    let directory = temporaryDirectory()
    var server = try TestServer(directory: directory, mode: .inProcess)
    #expect(try await server.admin("PUT", "/v1/admin/config", json: Self.config(weights: (50, 50))).status == 200)
    var assigned: [String: String] = [:]
    for _ in 0..<40 {
      let id = try await server.createProfile()
      let result = try await server.sdk("GET", "/v1/sdk/placements/p/flow?profile_id=\(id)")
      let response = try result.decode(PlacementFlowResponse.self)
      #expect(response.placement.abTestName == "Price test")
      #expect(response.placement.audienceName == "Everyone")
      assigned[id] = response.flow.id
    }
    #expect(Set(assigned.values) == ["a", "b"])

    // Everyone new would now get "b"; those already assigned keep their variation.
    #expect(try await server.admin("PUT", "/v1/admin/config", json: Self.config(weights: (0, 100))).status == 200)
    for (id, flow) in assigned {
      let result = try await server.sdk("GET", "/v1/sdk/placements/p/flow?profile_id=\(id)")
      #expect(try result.decode(PlacementFlowResponse.self).flow.id == flow)
    }
    let newcomer = try await server.createProfile()
    #expect(
      try await server.sdk("GET", "/v1/sdk/placements/p/flow?profile_id=\(newcomer)").decode(PlacementFlowResponse.self)
        .flow.id == "b")

    server.stop()
    server = try TestServer(directory: directory, mode: .inProcess)
    defer { server.stop() }
    // The restarted server issued new keys for the same apps; old assignments still hold.
    for (id, flow) in assigned {
      let result = try await server.sdk("GET", "/v1/sdk/placements/p/flow?profile_id=\(id)")
      #expect(try result.decode(PlacementFlowResponse.self).flow.id == flow)
    }
  }
}
