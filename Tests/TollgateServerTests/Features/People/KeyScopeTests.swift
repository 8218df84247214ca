import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateServer

@Suite("Admin keys with scopes and expiry")
struct KeyScopeTests {
  /// Creates a secret key through the admin API and returns it.
  func key(_ server: TestServer, _ body: String) async throws -> String {
    let created = try await server.admin("POST", "/v1/admin/keys", json: body)
    precondition(created.status == 201, "key refused: \(String(decoding: created.body, as: UTF8.self))")
    return created.json?.objectValue?["key"]?.stringValue ?? ""
  }

  @Test("a reports:read key reads reports and nothing else; a key made without scopes does everything")
  func reportsOnly() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let reports = try await key(server, #"{"kind":"secret","label":"BI","scopes":["reports:read"]}"#)
    #expect(try await server.admin("GET", "/v1/admin/stats/subscriptions", key: reports).status == 200)
    #expect(try await server.admin("GET", "/v1/admin/overview", key: reports).status == 200)
    let write = try await server.admin("PUT", "/v1/admin/config", json: "{}", key: reports)
    #expect(write.status == 403)
    #expect(write.errorMessage?.contains("config:write") == true)
    #expect(try await server.admin("GET", "/v1/admin/keys", key: reports).status == 403)
    #expect(try await server.admin("GET", "/v1/admin/profiles/x", key: reports).status == 403)
    let listed = try await server.admin("GET", "/v1/admin/keys")
    let bi = listed.json?.objectValue?["keys"]?.arrayValue?.first { $0.objectValue?["label"] == .string("BI") }
    #expect(bi?.objectValue?["scopes"] == .array([.string("reports:read")]))
    let original = listed.json?.objectValue?["keys"]?.arrayValue?.first {
      $0.objectValue?["kind"] == .string("secret") && $0.objectValue?["label"] == nil
    }
    #expect(original?.objectValue?["scopes"] == .array([.string("all")]))
  }

  @Test("an expiring key stops at its date with 401 key_expired")
  func expiry() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let shortLived = try await key(server, #"{"kind":"secret","expires_in_days":30}"#)
    #expect(try await server.admin("GET", "/v1/admin/config", key: shortLived).status != 401)
    server.time.advance(days: 29.9)
    #expect(try await server.admin("GET", "/v1/admin/keys", key: shortLived).status == 200)
    server.time.advance(days: 0.2)
    let expired = try await server.admin("GET", "/v1/admin/keys", key: shortLived)
    #expect(expired.status == 401)
    #expect(expired.errorCode == "key_expired")
  }

  @Test("scopes are refused on public keys, unknown scopes and expiries out of range are 422")
  func refusals() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    for body in [
      #"{"kind":"public","scopes":["reports:read"]}"#, #"{"kind":"secret","scopes":["god"]}"#,
      #"{"kind":"secret","scopes":[]}"#, #"{"kind":"secret","expires_in_days":0}"#,
      #"{"kind":"secret","expires_in_days":4000}"#,
    ] {
      let refused = try await server.admin("POST", "/v1/admin/keys", json: body)
      #expect(refused.status == 422, "\(body)")
    }
  }

  @Test("the last secret key with every scope cannot be revoked while only scoped keys remain")
  func lastFullKey() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    _ = try await key(server, #"{"kind":"secret","scopes":["config:write"]}"#)
    _ = try await key(server, #"{"kind":"secret","expires_in_days":10}"#)
    let keys = try await server.admin("GET", "/v1/admin/keys").json?.objectValue?["keys"]?.arrayValue ?? []
    let full = try #require(
      keys.first {
        $0.objectValue?["scopes"] == .array([.string("all")]) && $0.objectValue?["expires_at"] == nil
      }?.objectValue?["id"]?.stringValue)
    let refused = try await server.admin("DELETE", "/v1/admin/keys/\(full)")
    #expect(refused.status == 409)
    #expect(refused.errorCode == "last_secret_key")
  }

  @Test("every admin route × every scope: 403 exactly where the scope lacks the route's permission")
  func walk() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    var keys: [KeyScope: String] = [:]
    for scope in KeyScope.allCases {
      keys[scope] = try await key(server, #"{"kind":"secret","scopes":["\#(scope.rawValue)"]}"#)
    }
    for route in server.server.service.router.routes where route.pattern.hasPrefix("/v1/admin") {
      let permission = try #require(route.permission.flatMap(Permission.init(rawValue:)))
      let path = route.pattern.split(separator: "/").map { $0.hasPrefix("{") ? "0" : String($0) }.joined(separator: "/")
      for scope in KeyScope.allCases {
        let result = try await server.admin(route.method, "/" + path, json: "{}", key: keys[scope]!)
        let forbidden = result.status == 403 && result.errorCode == "forbidden"
        #expect(
          forbidden == !scope.permissions.contains(permission),
          "\(scope) \(route.method) \(route.pattern) needs \(permission.rawValue): \(result.status)")
      }
    }
  }
}
