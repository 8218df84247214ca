import Foundation
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateServer

/// A person signed in to a test server's console: their cookie and CSRF token, sent as a
/// browser on the console's page would send them.
struct ConsoleUser {
  let email: String
  let password: String
  var cookie: String
  var csrf: String

  /// The console's headers: the cookie, the app, and for changes the CSRF token and the origin.
  func headers(app: String? = "alpha", csrf sendsToken: Bool = true, origin: String? = "http://127.0.0.1")
    -> [String: String]
  {
    var headers = ["Cookie": "tollgate_session=\(cookie)", "Host": "127.0.0.1"]
    if let app { headers["X-Tollgate-App"] = app }
    if sendsToken { headers["X-CSRF-Token"] = csrf }
    if let origin { headers["Origin"] = origin }
    return headers
  }
}

extension TestServer {
  /// Invites `email` to alpha with `role` (through the admin API, with alpha's secret key) and
  /// returns the link's token.
  func invite(_ email: String, role: Role, app key: String? = nil) async throws -> String {
    let result = try await admin(
      "POST", "/v1/admin/invitations", json: #"{"email":"\#(email)","role":"\#(role.rawValue)"}"#, key: key)
    precondition(result.status == 201, "invitation refused: \(String(decoding: result.body, as: UTF8.self))")
    guard let token = result.json?.objectValue?["token"]?.stringValue else { preconditionFailure("no token") }
    return token
  }

  /// Accepts an invitation as a browser would.
  func accept(_ token: String, password: String, name: String? = nil) async throws -> HTTPResult {
    var body: [String: String] = ["password": password]
    if let name { body["name"] = name }
    return try await send(
      "POST", "/v1/console/invitations/\(token)/accept", headers: ["Host": "127.0.0.1", "Origin": "http://127.0.0.1"],
      body: try JSONEncoder().encode(body))
  }

  /// Signs in as a browser would.
  func signIn(_ email: String, _ password: String, cookie: String? = nil) async throws -> HTTPResult {
    var headers = ["Host": "127.0.0.1", "Origin": "http://127.0.0.1"]
    if let cookie { headers["Cookie"] = "tollgate_session=\(cookie)" }
    return try await send(
      "POST", "/v1/console/sign-in", headers: headers,
      body: try JSONEncoder().encode(["email": email, "password": password]))
  }

  /// A new person in alpha with `role`, signed in.
  func person(_ role: Role, email: String? = nil, password: String = "long enough passphrase 42") async throws
    -> ConsoleUser
  {
    let email = email ?? "\(role.rawValue)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
    let accepted = try await accept(try await invite(email, role: role), password: password)
    precondition(accepted.status == 200, "accept refused: \(String(decoding: accepted.body, as: UTF8.self))")
    return try ConsoleUser(email: email, password: password, answer: accepted)
  }

  /// A console request as `user`.
  func console(
    _ method: String, _ path: String, as user: ConsoleUser, app: String? = "alpha", json: String? = nil,
    csrf: Bool = true, origin: String? = "http://127.0.0.1"
  ) async throws -> HTTPResult {
    try await send(
      method, path, headers: user.headers(app: app, csrf: csrf, origin: origin), body: json.map { Data($0.utf8) })
  }
}

extension ConsoleUser {
  /// The session a sign-in or an acceptance opened.
  init(email: String, password: String, answer: HTTPResult) throws {
    guard let setCookie = answer.header("Set-Cookie"),
      let value = setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last,
      let csrf = answer.json?.objectValue?["csrf_token"]?.stringValue
    else { throw ConsoleUserError() }
    self.init(email: email, password: password, cookie: String(value), csrf: csrf)
  }
}

struct ConsoleUserError: Error {}
