import Foundation
import Testing
import TollgateTestSupport

@testable import TollgateDomain

@Suite("docs/access.md")
struct AccessDocTests {
  @Test("the roles table is what the roles allow, permission by permission")
  func rolesTable() throws {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/access.md"), encoding: .utf8)
    var documented: [Permission: Set<Role>] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count == 10, let permission = Permission(rawValue: cells[1].trimmingCharacters(in: ["`"])) else {
        continue
      }
      documented[permission] = Set(zip(Role.allCases, cells[3..<9]).filter { $0.1 == "✓" }.map(\.0))
    }
    #expect(Set(documented.keys) == Set(Permission.allCases))
    for permission in Permission.allCases {
      #expect(
        documented[permission] == Set(Role.allCases.filter { $0.allows(permission) }), "\(permission.rawValue)")
    }
  }

  @Test("the scopes table is what each key scope allows")
  func scopesTable() throws {
    let text = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/access.md"), encoding: .utf8)
    var documented: [KeyScope: Set<String>] = [:]
    for line in text.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard cells.count == 2, let scope = KeyScope(rawValue: cells[0].trimmingCharacters(in: ["`"])) else { continue }
      documented[scope] = Set(cells[1].matches(of: /`([a-z:]+)`/).map { String($0.1) })
    }
    #expect(Set(documented.keys) == Set(KeyScope.allCases))
    for scope in KeyScope.allCases where scope != .all {
      #expect(documented[scope] == Set(scope.permissions.map(\.rawValue)), "\(scope.rawValue)")
    }
    #expect(KeyScope.all.permissions == Set(Permission.allCases))
  }
}
