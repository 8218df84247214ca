import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateServer
@testable import TollgateSupport

@Suite("Two-factor sign-in")
struct TwoFactorTests {
  /// Sets up a second factor for `user` through the console's routes; returns the secret and the
  /// recovery codes.
  func setUp(_ server: TestServer, _ user: ConsoleUser) async throws -> (secret: [UInt8], codes: [String]) {
    let setup = try await server.console("POST", "/v1/console/two-factor/setup", as: user)
    let text = try #require(setup.json?.objectValue?["secret"]?.stringValue)
    let secret = try #require(TOTP.bytes(base32: text))
    #expect(setup.json?.objectValue?["uri"]?.stringValue?.hasPrefix("otpauth://totp/Tollgate:") == true)
    let wrong = try await server.console(
      "POST", "/v1/console/two-factor/confirm", as: user, json: #"{"code":"000000"}"#)
    #expect(wrong.status == 422)
    let code = TOTP.code(secret: secret, step: TOTP.step(at: server.time.now()))
    let confirmed = try await server.console(
      "POST", "/v1/console/two-factor/confirm", as: user, json: #"{"code":"\#(code)"}"#)
    #expect(confirmed.status == 200)
    let codes = confirmed.json?.objectValue?["recovery_codes"]?.arrayValue?.compactMap(\.stringValue) ?? []
    return (secret, codes)
  }

  func signIn(_ server: TestServer, _ user: ConsoleUser, code: String?) async throws -> HTTPResult {
    var body = ["email": user.email, "password": user.password]
    if let code { body["code"] = code }
    return try await server.send(
      "POST", "/v1/console/sign-in", headers: ["Host": "127.0.0.1", "Origin": "http://127.0.0.1"],
      body: try JSONEncoder().encode(body))
  }

  @Test("with a second factor, the password alone is not enough; a code is taken once; recovery codes once each")
  func signInWithCode() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.editor, email: "ana@example.com")
    let (secret, codes) = try await setUp(server, ana)
    #expect(codes.count == 10 && Set(codes).count == 10)
    // The secret is sealed in the database, never in clear.
    let stored = try server.server.store.database.twoFactor(personId: 1)
    #expect(stored.secret != nil && stored.secret != TOTP.base32(secret))

    let missing = try await signIn(server, ana, code: nil)
    #expect(missing.status == 401)
    #expect(missing.errorCode == "two_factor_code_required")
    #expect(missing.header("Set-Cookie") == nil)
    // The code used to confirm the set-up is spent; the next step's code works once.
    server.time.advance(days: 30.0 / 86_400)
    let code = TOTP.code(secret: secret, step: TOTP.step(at: server.time.now()))
    #expect(try await signIn(server, ana, code: "123456").errorCode == "invalid_credentials")
    server.time.advance(days: 4.0 / 86_400)  // past the throttle's first wait
    #expect(try await signIn(server, ana, code: code).status == 200)
    server.time.advance(days: 8.0 / 86_400)
    let replay = try await signIn(server, ana, code: code)
    #expect(replay.status == 401)
    #expect(replay.errorMessage?.contains("used already") == true)

    server.time.advance(days: 16.0 / 86_400)
    #expect(try await signIn(server, ana, code: codes[0].uppercased()).status == 200)
    server.time.advance(days: 32.0 / 86_400)
    #expect(try await signIn(server, ana, code: codes[0]).status == 401)
    server.time.advance(days: 2.0 / 86_400)  // this address has failed four times: its wait
    let second = try await signIn(server, ana, code: codes[1])
    #expect(second.status == 200, "\(second.errorMessage ?? "")")
    let session = try ConsoleUser(email: ana.email, password: ana.password, answer: second)
    let me = try await server.console("GET", "/v1/console/session", as: session)
    #expect(me.json?.objectValue?["person"]?.objectValue?["two_factor"] == .bool(true))
    #expect(me.json?.objectValue?["person"]?.objectValue?["recovery_codes_left"] == .int(8))

    // Off with the password; then the password alone signs in again.
    #expect(
      try await server.console(
        "POST", "/v1/console/two-factor/disable", as: session, json: #"{"password":"wrong one"}"#
      ).status == 422)
    #expect(
      try await server.console(
        "POST", "/v1/console/two-factor/disable", as: session, json: #"{"password":"\#(ana.password)"}"#
      ).status == 200)
    server.time.advance(days: 64.0 / 86_400)
    #expect(try await signIn(server, ana, code: nil).status == 200)
  }

  @Test("an owner requires two-factor sign-in: people without it are refused the app until they set it up")
  func policy() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let owner = try await server.person(.owner, email: "olga@example.com")
    let editor = try await server.person(.editor, email: "ed@example.com")
    #expect(
      try await server.console("PUT", "/v1/admin/security", as: editor, json: #"{"require_two_factor":true}"#).status
        == 403)
    let set = try await server.console("PUT", "/v1/admin/security", as: owner, json: #"{"require_two_factor":true}"#)
    #expect(set.status == 200)
    let refused = try await server.console("GET", "/v1/admin/config", as: editor)
    #expect(refused.status == 403)
    #expect(refused.errorCode == "two_factor_required")
    // The account routes stay open, so they can set it up.
    let session = try await server.console("GET", "/v1/console/session", as: editor)
    #expect(session.json?.objectValue?["apps"]?.arrayValue?.first?.objectValue?["requires_two_factor"] == .bool(true))
    _ = try await setUp(server, editor)
    #expect(try await server.console("GET", "/v1/admin/config", as: editor).status != 403)
    // Keys are machines: the policy is about people.
    #expect(try await server.admin("GET", "/v1/admin/config").status != 403)
    let people = try await server.admin("GET", "/v1/admin/people")
    #expect(people.json?.objectValue?["require_two_factor"] == .bool(true))
    let audit = try await server.admin("GET", "/v1/admin/audit?actor=olga@example.com")
    #expect(
      audit.json?.objectValue?["entries"]?.arrayValue?.first?.objectValue?["action"] == .string("app.two_factor_policy")
    )
  }
}

@Suite("Resets by an owner")
struct ResetTests {
  @Test("a password-reset link sets a new password once and ends the person's sessions")
  func passwordReset() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let owner = try await server.person(.owner, email: "olga@example.com")
    let editor = try await server.person(.editor, email: "ed@example.com")
    let list = try await server.console("GET", "/v1/admin/people", as: owner)
    let id = try #require(
      list.json?.objectValue?["people"]?.arrayValue?.first { $0.objectValue?["email"] == .string("ed@example.com") }?
        .objectValue?["id"])
    guard case .int(let editorId) = id else { return }
    let made = try await server.console("POST", "/v1/admin/people/\(editorId)/reset-password", as: owner)
    #expect(made.status == 201)
    let token = try #require(made.json?.objectValue?["token"]?.stringValue)
    let offer = try await server.send("GET", "/v1/console/invitations/\(token)")
    #expect(offer.json?.objectValue?["resets_password"] == .bool(true))
    #expect(try await server.accept(token, password: "password1234").errorCode == "weak_password")
    let reset = try await server.accept(token, password: "a fresh start at last")
    #expect(reset.status == 200)
    #expect(try await server.console("GET", "/v1/admin/app", as: editor).status == 401)
    #expect(try await server.signIn(editor.email, editor.password).status == 401)
    server.time.advance(days: 2.0 / 86_400)
    #expect(try await server.signIn(editor.email, "a fresh start at last").status == 200)
    #expect(try await server.accept(token, password: "another one entirely").errorCode == "invitation_used")
    // Their role is kept.
    #expect(reset.json?.objectValue?["apps"]?.arrayValue?.first?.objectValue?["role"] == .string("editor"))
  }

  @Test("an owner of one app cannot reset someone who also belongs to another app")
  func otherApps() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let owner = try await server.person(.owner, email: "olga@example.com")
    let both = try await server.person(.editor, email: "ed@example.com")
    let token = try await server.invite("ed@example.com", role: .viewer, app: server.beta.secretKey)
    #expect(try await server.accept(token, password: both.password).status == 200)
    let people = try await server.console("GET", "/v1/admin/people", as: owner)
    guard
      case .int(let id) = people.json?.objectValue?["people"]?.arrayValue?.first(where: {
        $0.objectValue?["email"] == .string("ed@example.com")
      })?.objectValue?["id"]
    else { return }
    #expect(try await server.console("POST", "/v1/admin/people/\(id)/reset-password", as: owner).status == 403)
    #expect(try await server.console("POST", "/v1/admin/people/\(id)/reset-two-factor", as: owner).status == 403)
    // The operator's key may.
    #expect(try await server.admin("POST", "/v1/admin/people/\(id)/reset-two-factor").status == 200)
  }
}
