import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// One file of `Fixtures/targeting/`: cases evaluated against attributes, and rules that
/// must be rejected at the given path. Every implementation of the rule language runs them.
struct TargetingFixture: Decodable, Sendable {
  struct Case: Decodable, Sendable {
    let name: String
    let rule: JSONValue
    let attributes: [String: JSONValue]
    let expected: Bool
  }

  struct Invalid: Decodable, Sendable {
    let name: String
    let rule: JSONValue
    let errorPath: String

    enum CodingKeys: String, CodingKey {
      case name, rule
      case errorPath = "error_path"
    }
  }

  let `operator`: String
  /// Saved lists the cases' rules name (`$inGroup`), by id.
  let lists: [String: [String]]?
  let cases: [Case]
  let invalid: [Invalid]

  /// The fixture's lists, as the server holds them.
  var savedLists: [String: SavedList] {
    (lists ?? [:]).reduce(into: [:]) { $0[$1.key] = SavedList(id: $1.key, values: Array(Set($1.value))) }
  }

  static let directory = repositoryRoot.appendingPathComponent("Fixtures/targeting")

  static var files: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
      .filter { $0.hasSuffix(".json") }.sorted()
  }

  static func load(_ file: String) throws -> TargetingFixture {
    try WireCoding.decoder.decode(TargetingFixture.self, from: Data(contentsOf: directory.appendingPathComponent(file)))
  }
}

@Suite("Targeting conformance fixtures")
struct TargetingFixtureTests {
  @Test("there is a fixture file for every operator")
  func coverage() throws {
    let operators = Set(try TargetingFixture.files.map { try TargetingFixture.load($0).operator })
    let required: Set<String> = [
      "$eq", "$ne", "$in", "$nin", "$all", "$size", "$gt", "$gte", "$lt", "$lte", "$exists", "$regex",
      "$semver_*", "$and", "$or", "$nor", "$not", "$veq $vne $vgt $vgte $vlt $vlte", "$ini", "$nini", "$alli",
      "$regexi", "$elemMatch", "$type", "$not (in a condition)", "GrowthBook differences", "$inGroup", "$notInGroup",
    ]
    #expect(required.isSubset(of: operators), "missing: \(required.subtracting(operators))")
  }

  @Test("cases evaluate as the fixture says", arguments: TargetingFixture.files)
  func cases(file: String) throws {
    let fixture = try TargetingFixture.load(file)
    #expect(!fixture.cases.isEmpty)
    for item in fixture.cases {
      var compiler = RuleCompiler()
      let compiled = compiler.compile(item.rule, at: "$")?.binding(fixture.savedLists)
      let rule = try #require(compiled, "\(file): \(item.name): \(compiler.problems)")
      #expect((rule.evaluate(item.attributes) ?? false) == item.expected, "\(file): \(item.name)")
    }
  }

  @Test("cases evaluate the same through a packed profile (what the cache keeps)", arguments: TargetingFixture.files)
  func packedCases(file: String) throws {
    let strings = StringTable(capacity: 8)
    let fixture = try TargetingFixture.load(file)
    for item in fixture.cases {
      var compiler = RuleCompiler()
      let compiled = compiler.compile(item.rule, at: "$")?.binding(fixture.savedLists)
      let rule = try #require(compiled)
      let schema = TargetingSchema(reading: rule.attributeNames, accessLevels: [])
      // A small table: some strings interned, the rest inline, as in a full cache.
      let bytes = TargetingView.pack(attributes: item.attributes, schema: schema, strings: strings)
      let view = TargetingView(profileId: "p", schemaId: schema.id, bytes: PackedBytes(bytes), strings: strings)
      let attributes = view.attributes(schema, now: Date())
      for name in schema.names { #expect(attributes.value(of: name) == item.attributes[name], "\(file): \(name)") }
      #expect((rule.evaluate(attributes) ?? false) == item.expected, "\(file): \(item.name)")
    }
  }

  @Test("invalid rules are rejected at the fixture's path", arguments: TargetingFixture.files)
  func invalid(file: String) throws {
    for item in try TargetingFixture.load(file).invalid {
      var compiler = RuleCompiler()
      let compiled = compiler.compile(item.rule, at: "$")
      #expect(compiled == nil, "\(file): \(item.name)")
      #expect(compiler.problems.map(\.path).contains(item.errorPath), "\(file): \(item.name): \(compiler.problems)")
    }
  }
}
