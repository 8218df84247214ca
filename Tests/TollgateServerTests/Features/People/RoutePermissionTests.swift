import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgateServer

@Suite("Every admin route × every role")
struct RoutePermissionTests {
  @Test("each role gets 403 forbidden exactly on the routes whose permission it lacks")
  func walk() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    var people: [Role: ConsoleUser] = [:]
    for role in Role.allCases { people[role] = try await server.person(role) }
    let routes = server.server.service.router.routes.filter { $0.pattern.hasPrefix("/v1/admin") }
    #expect(routes.count >= 50)
    for route in routes {
      let permission = try #require(
        route.permission.flatMap(Permission.init(rawValue:)), "\(route.method) \(route.pattern)")
      // Path parameters that name nothing: a route allowed answers 404 or 4xx, never 403.
      let path = route.pattern.split(separator: "/").map { $0.hasPrefix("{") ? "0" : String($0) }.joined(separator: "/")
      for role in Role.allCases {
        let result = try await server.console(route.method, "/" + path, as: people[role]!, json: "{}")
        let forbidden = result.status == 403 && result.errorCode == "forbidden"
        #expect(
          forbidden == !role.allows(permission),
          "\(role) \(route.method) \(route.pattern) needs \(permission.rawValue): \(result.status) \(result.errorCode ?? "")"
        )
        if forbidden { #expect(result.errorMessage?.contains(permission.rawValue) == true) }
      }
    }
  }

  @Test("a person of one app cannot reach another app's data, whatever their role")
  func otherApp() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let owner = try await server.person(.owner)
    let result = try await server.console("GET", "/v1/admin/config", as: owner, app: "beta")
    #expect(result.status == 403)
    #expect(result.errorMessage?.contains("not a member") == true)
    // A forged cookie is no session.
    var forged = owner
    forged.cookie = String(owner.cookie.dropLast()) + (owner.cookie.last == "A" ? "B" : "A")
    #expect(try await server.console("GET", "/v1/admin/app", as: forged).errorCode == "session_expired")
  }
}
