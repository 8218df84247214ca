import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("API document")
struct OpenAPITests {
  /// `METHOD /path` pairs declared under `paths:` in docs/openapi.yaml (two-space path keys,
  /// four-space method keys: the layout the file keeps).
  static func documentedRoutes() throws -> Set<String> {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
    var routes: Set<String> = []
    var inPaths = false
    var currentPath: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:" }
      guard inPaths else { continue }
      if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
        currentPath = String(line.dropFirst(2).dropLast())
      } else if let currentPath, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
        let method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
        if ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(method) { routes.insert("\(method) \(currentPath)") }
      }
    }
    return routes
  }

  @Test("every router route is documented and every documented route exists")
  func routesMatch() throws {
    let service = Service(
      store: OpenedStore(try SQLiteStore(path: temporaryDirectory().appendingPathComponent("d.sqlite").path)))
    let served = Set(service.router.routes.map { "\($0.method) \($0.pattern)" })
    let documented = try Self.documentedRoutes()
    #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
    #expect(
      documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    #expect(served.count >= 14)
  }

  /// `METHOD /path` → the operation's `x-permission`.
  static func documentedPermissions() throws -> [String: String] {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
    var permissions: [String: String] = [:]
    var currentPath: String?
    var currentOperation: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
        currentPath = String(line.dropFirst(2).dropLast())
      } else if let currentPath, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
        currentOperation = "\(line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()) \(currentPath)"
      } else if let currentOperation, line.hasPrefix("      x-permission: ") {
        permissions[currentOperation] = String(line.dropFirst("      x-permission: ".count))
      }
    }
    return permissions
  }

  @Test("each admin route's x-permission in the document is the one the route table declares")
  func permissions() throws {
    let service = Service(
      store: OpenedStore(try SQLiteStore(path: temporaryDirectory().appendingPathComponent("d.sqlite").path)))
    var declared: [String: String] = [:]
    for route in service.router.routes {
      if let permission = route.permission { declared["\(route.method) \(route.pattern)"] = permission }
    }
    #expect(declared.count >= 50)
    #expect(try Self.documentedPermissions() == declared)
    // Every admin route declares one.
    #expect(service.router.routes.filter { $0.pattern.hasPrefix("/v1/admin") && $0.permission == nil }.isEmpty)
  }

  @Test("the document lists every error code the server has, each under the status it answers with")
  func errorCodes() throws {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)
    let start = try #require(text.range(of: "    Error:\n      description: |\n"))
    var documented: [String: Int] = [:]
    for line in text[start.upperBound...].split(separator: "\n") {
      guard line.hasPrefix("        ") else { break }
      guard let match = line.firstMatch(of: /^\s*- (\d{3})[^:]*: (.*)$/) else { continue }
      for code in match.2.matches(of: /`([a-z_]+)`/) {
        #expect(documented[String(code.1)] == nil, "\(code.1) listed twice")
        documented[String(code.1)] = Int(match.1)
      }
    }
    let known = Dictionary(uniqueKeysWithValues: APIErrorCode.allCases.map { ($0.rawValue, $0.status) })
    #expect(documented == known, "document: \(documented.sorted { $0.key < $1.key })")
  }

  @Test("the router's SDK routes are exactly the shared route table the SDK builds its paths from")
  func sdkRouteTable() throws {
    let service = Service(
      store: OpenedStore(try SQLiteStore(path: temporaryDirectory().appendingPathComponent("d.sqlite").path)))
    let served = Set(
      service.router.routes.filter { $0.pattern.hasPrefix("/v1/sdk/") }.map { "\($0.method) \($0.pattern)" })
    #expect(served == Set(SDKRoute.all.map { "\($0.method) \($0.pattern)" }))
    #expect(SDKRoute.placementFlow.path("onboarding") == "/v1/sdk/placements/onboarding/flow")
    #expect(SDKRoute.transactions.path("p1") == "/v1/sdk/profiles/p1/transactions")
    #expect(SDKRoute.events.path() == "/v1/sdk/events")
  }
}
