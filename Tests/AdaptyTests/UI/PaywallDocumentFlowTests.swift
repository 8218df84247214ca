import Foundation
import Testing
import TollgateAPI

@testable import Adapty

/// A flow keeps its paywall document from every source: the server's answer, the disk cache
/// (the flow's own encoding) and the bundled fallback file.
@Suite("Paywall documents on flows")
struct PaywallDocumentFlowTests {
  static func document() throws -> JSONValue {
    let url = PaywallConformanceTests.directory.appendingPathComponent("01-english-light.json")
    let fixture = try WireCoding.decoder.decode(JSONValue.self, from: Data(contentsOf: url))
    return try #require(fixture.objectValue?["input"]?.objectValue?["document"])
  }

  @Test("the server's answer and the cache keep the document; an older cache entry without one still reads")
  func serverAndCache() throws {
    let document = try Self.document()
    let response = PlacementFlowResponse(
      placement: PlacementInfo(
        id: "onboarding", revision: 3, audienceId: "default", audienceName: "All Users", abTestName: nil),
      flow: FlowPayload(
        id: "standard", name: "Standard", variationId: "onboarding:default:standard", products: ["pro_annual"],
        remoteConfig: nil, paywall: document))
    let flow = AdaptyFlow(response, source: .segmented)
    #expect(flow.paywallDocument == document)
    let cached = try JSONDecoder().decode(AdaptyFlow.self, from: JSONEncoder().encode(flow))
    #expect(cached.paywallDocument == document && cached == flow)
    var older = try JSONSerialization.jsonObject(with: JSONEncoder().encode(flow)) as! [String: Any]
    older["paywallDocument"] = nil
    let read = try JSONDecoder().decode(AdaptyFlow.self, from: JSONSerialization.data(withJSONObject: older))
    #expect(read.paywallDocument == nil && read.id == "standard")
    // The document resolves as the conformance case says.
    let decoded = try WireCoding.decoder.decode(PaywallDocument.self, from: WireCoding.encode(document))
    #expect(decoded.version == 1 && decoded.blocks.first?.type == "image")
  }

  @Test("the bundled fallback file carries the document")
  func fallback() throws {
    let document = try Self.document()
    let flows = try Self.fallback(flow: "standard", paywall: document)
    #expect(flows.flow(placementId: "onboarding", locale: "fr")?.paywallDocument == document)
  }

  /// Fallback flows loaded, as an app loads them, from a file whose `onboarding` placement's
  /// default flow carries `paywall`.
  static func fallback(flow id: String, paywall: JSONValue) throws -> FallbackFlows {
    let file = FallbackFile(
      formatVersion: FallbackFile.currentFormatVersion, revision: 4, generatedAt: "2026-11-30T12:00:00.000Z",
      placements: [
        .init(
          id: "onboarding", audienceName: "All Users",
          flow: .init(
            id: id, name: id.capitalized, variationId: "onboarding:default:\(id)", products: ["pro_annual"],
            remoteConfigs: [:], paywall: paywall))
      ])
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fallback-\(UUID().uuidString).json")
    try WireCoding.encode(file).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let flows = FallbackFlows()
    try flows.load(from: url)
    return flows
  }
}
