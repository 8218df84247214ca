import Foundation
import Testing
import TollgateAPI

@testable import Adapty
@testable import AdaptyUI

/// `Fixtures/paywalls/`: each file is an input (document, store products, locale, appearance,
/// eligibility, selection) and the resolved tree every renderer must produce from it, or
/// `{"error": "unsupported_version"}`. The console's JavaScript runs the same files.
@Suite("Paywall resolution conformance")
struct PaywallConformanceTests {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/paywalls")

  static var files: [URL] {
    ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
      .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
  }

  struct Case: Decodable {
    var description: String
    var input: PaywallResolutionInput
    var expected: JSONValue?
  }

  static func outcome(_ input: PaywallResolutionInput) throws -> JSONValue {
    let resolved: ResolvedPaywall
    do {
      resolved = try PaywallResolution.resolve(input)
    } catch {
      return .object(["error": .string("unsupported_version")])
    }
    return try WireCoding.decoder.decode(JSONValue.self, from: WireCoding.encode(resolved))
  }

  @Test("there are cases")
  func present() { #expect(Self.files.count >= 5) }

  @Test("each case resolves to its expected tree", arguments: files.map(\.lastPathComponent))
  func conformance(_ name: String) throws {
    let url = Self.directory.appendingPathComponent(name)
    let data = try Data(contentsOf: url)
    let fixture = try WireCoding.decoder.decode(Case.self, from: data)
    let actual = try Self.outcome(fixture.input)
    if ProcessInfo.processInfo.environment["TOLLGATE_RECORD_PAYWALLS"] == "1" {
      var object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
      object["expected"] = try JSONSerialization.jsonObject(with: WireCoding.encode(actual))
      try JSONSerialization.data(
        withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
      )
      .write(to: url)
      return
    }
    let expected = try #require(fixture.expected, "\(name) has no expected tree")
    #expect(actual == expected, "\(name): \(fixture.description)")
  }
}
