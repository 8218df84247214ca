import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

@Suite("People: invitations, sign-in, sessions, CSRF")
struct PeopleTests {
  @Test("an invitation is accepted once with a strong password; the session cookie is HttpOnly, SameSite=Strict")
  func invitation() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let token = try await server.invite("Ana@Example.com ", role: .editor)
    let shown = try await server.send("GET", "/v1/console/invitations/\(token)")
    #expect(shown.status == 200)
    #expect(shown.json?.objectValue?["email"] == .string("ana@example.com"))
    #expect(shown.json?.objectValue?["app"] == .string("alpha"))
    #expect(shown.json?.objectValue?["role"] == .string("editor"))
    #expect(shown.json?.objectValue?["existing_person"] == .bool(false))

    for weak in ["short", "password123456", "iloveyou2024!!", "ana@example.com1"] {
      let refused = try await server.accept(token, password: weak)
      #expect(refused.status == 422, "\(weak)")
      #expect(refused.errorCode == "weak_password")
    }
    let accepted = try await server.accept(token, password: "tangerine-kayak-orbit", name: "Ana")
    #expect(accepted.status == 200)
    let cookie = try #require(accepted.header("Set-Cookie"))
    #expect(cookie.hasPrefix("tollgate_session="))
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=604800"] { #expect(cookie.contains(attribute)) }
    #expect(!cookie.contains("Secure"))
    #expect(accepted.json?.objectValue?["apps"]?.arrayValue?.first?.objectValue?["role"] == .string("editor"))

    let again = try await server.accept(token, password: "tangerine-kayak-orbit")
    #expect(again.status == 409)
    #expect(again.errorCode == "invitation_used")
    let unknown = try await server.send("GET", "/v1/console/invitations/nope")
    #expect(unknown.status == 404)
    #expect(unknown.errorCode == "invitation_not_found")

    let late = try await server.invite("ben@example.com", role: .viewer)
    server.time.advance(days: 7.01)
    let expired = try await server.accept(late, password: "tangerine-kayak-orbit")
    #expect(expired.status == 410)
    #expect(expired.errorCode == "invitation_expired")

    // The hash is Argon2id; the password itself is nowhere in the database.
    let stored = try #require(try server.server.store.database.person(email: "ana@example.com"))
    #expect(stored.passwordHash?.hasPrefix("$argon2id$") == true)
    #expect(stored.name == "Ana")
  }

  @Test("someone who has an account accepts a second app's invitation with their own password")
  func secondApp() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.editor, email: "ana@example.com")
    let token = try await server.invite("ana@example.com", role: .analyst, app: server.beta.secretKey)
    #expect(
      try await server.send("GET", "/v1/console/invitations/\(token)").json?.objectValue?["existing_person"]
        == .bool(true))
    let wrong = try await server.accept(token, password: "someone else's passphrase")
    #expect(wrong.status == 401)
    let joined = try await server.accept(token, password: ana.password)
    #expect(joined.status == 200)
    let apps = joined.json?.objectValue?["apps"]?.arrayValue?.compactMap { $0.objectValue?["role"]?.stringValue }
    #expect(apps == ["editor", "analyst"])
    // With two apps, the console names the one it means.
    let user = try ConsoleUser(email: ana.email, password: ana.password, answer: joined)
    let unnamed = try await server.console("GET", "/v1/admin/app", as: user, app: nil)
    #expect(unnamed.status == 400)
    #expect(
      try await server.console("GET", "/v1/admin/app", as: user, app: "beta").json?.objectValue?["name"]
        == .string("beta"))
    #expect(try await server.console("PUT", "/v1/admin/config", as: user, app: "beta", json: "{}").status == 403)
  }

  @Test("wrong password, unknown e-mail and disabled person get the same answer")
  func sameAnswer() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.viewer, email: "ana@example.com")
    let wrong = try await server.signIn("ana@example.com", "not her password!!")
    let unknown = try await server.signIn("nobody@example.com", "not her password!!")
    #expect(wrong.status == 401 && unknown.status == 401)
    #expect(wrong.errorCode == "invalid_credentials" && wrong.errorCode == unknown.errorCode)
    #expect(wrong.errorMessage == unknown.errorMessage)
    #expect(wrong.header("Set-Cookie") == nil)
    let right = try await server.signIn(" ANA@example.com", ana.password)
    #expect(right.status == 200)
  }

  @Test("an unknown e-mail is checked against a hash of the very cost a real one has: no shortcut tells people apart")
  func decoyCost() throws {
    let store = try SQLiteStore(path: temporaryDirectory().appendingPathComponent("d.sqlite").path)
    defer { store.close() }
    let hasher = PasswordHasher.recommended
    let sessions = ConsoleSessions(
      people: store, hasher: hasher, throttle: SignInThrottle(), policy: SessionPolicy(),
      twoFactor: TwoFactorService(people: store, hasher: hasher, secrets: nil, time: ManualTime()), time: ManualTime())
    let real = try hasher.hash("a real person's passphrase")
    #expect(sessions.decoy.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    #expect(!hasher.needsRehash(sessions.decoy))
    #expect(sessions.decoy.split(separator: "$").prefix(3) == real.split(separator: "$").prefix(3))
    #expect(!hasher.verify("", against: sessions.decoy))
  }

  @Test("sign-in failures are throttled per account and per address, then the account locks until an owner lifts it")
  func bruteForce() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.viewer, email: "ana@example.com")
    var statuses: [Int] = []
    for attempt in 0..<1_000 {
      let result = try await server.signIn("ana@example.com", "guess number \(attempt)")
      statuses.append(result.status)
      if result.status == 429 { #expect(Int(result.header("Retry-After") ?? "") ?? 0 >= 1) }
    }
    // Four tries are heard; then one try per wait, and the clock does not move.
    #expect(statuses.prefix(4) == [401, 401, 401, 401])
    #expect(statuses.dropFirst(4).allSatisfy { $0 == 429 })
    // Even the right password waits.
    #expect(try await server.signIn("ana@example.com", ana.password).status == 429)
    // Another account from the same address waits too (per address), so does the same account
    // from elsewhere (per account).
    #expect(try await server.signIn("ben@example.com", "whatever it is now").status == 429)

    // Twenty failures in a row lock the account for 15 minutes.
    for _ in 0..<20 {
      server.time.advance(days: 61.0 / 86_400)
      _ = try await server.signIn("ana@example.com", "another wrong guess")
    }
    server.time.advance(days: 61.0 / 86_400)
    let locked = try await server.signIn("ana@example.com", ana.password)
    #expect(locked.status == 429)
    #expect(Int(locked.header("Retry-After") ?? "") ?? 0 > 60)
    let people = try await server.admin("GET", "/v1/admin/people")
    let member = try #require(people.json?.objectValue?["people"]?.arrayValue?.first?.objectValue)
    #expect(member["locked_until"]?.stringValue != nil)
    guard case .int(let id) = member["id"] else { Issue.record("no id"); return }
    #expect(try await server.admin("POST", "/v1/admin/people/\(id)/unlock").status == 200)
    // The address still owes its wait.
    server.time.advance(days: 61.0 / 86_400)
    #expect(try await server.signIn("ana@example.com", ana.password).status == 200)
  }

  @Test("a session ends after 12 idle hours, after 7 days, at sign-out, and everywhere at once")
  func expiry() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.viewer, email: "ana@example.com")
    #expect(try await server.console("GET", "/v1/admin/app", as: ana).status == 200)
    server.time.advance(days: 11.5 / 24)
    #expect(try await server.console("GET", "/v1/admin/app", as: ana).status == 200)
    server.time.advance(days: 11.5 / 24)
    #expect(try await server.console("GET", "/v1/admin/app", as: ana).status == 200)
    server.time.advance(days: 12.01 / 24)
    let idle = try await server.console("GET", "/v1/admin/app", as: ana)
    #expect(idle.status == 401)
    #expect(idle.errorCode == "session_expired")

    var busy = try ConsoleUser(
      email: ana.email, password: ana.password, answer: try await server.signIn(ana.email, ana.password))
    for _ in 0..<15 {
      server.time.advance(days: 11.0 / 24)
      _ = try await server.console("GET", "/v1/admin/app", as: busy)
    }
    // 6 days 21 hours: still open; 7 days and an hour: closed though used an hour ago.
    #expect(try await server.console("GET", "/v1/admin/app", as: busy).status == 200)
    server.time.advance(days: 4.0 / 24)
    #expect(try await server.console("GET", "/v1/admin/app", as: busy).status == 401)

    busy = try ConsoleUser(
      email: ana.email, password: ana.password, answer: try await server.signIn(ana.email, ana.password))
    let other = try ConsoleUser(
      email: ana.email, password: ana.password, answer: try await server.signIn(ana.email, ana.password))
    let out = try await server.console("POST", "/v1/console/sign-out", as: busy)
    #expect(out.status == 200)
    #expect(out.header("Set-Cookie")?.contains("Max-Age=0") == true)
    #expect(try await server.console("GET", "/v1/admin/app", as: busy).status == 401)
    #expect(try await server.console("GET", "/v1/admin/app", as: other).status == 200)
    let third = try ConsoleUser(
      email: ana.email, password: ana.password, answer: try await server.signIn(ana.email, ana.password))
    #expect(try await server.console("POST", "/v1/console/sign-out-everywhere", as: third).status == 200)
    #expect(try await server.console("GET", "/v1/admin/app", as: other).status == 401)
    #expect(try await server.console("GET", "/v1/admin/app", as: third).status == 401)
  }

  @Test("a forged session cookie opens nothing: made up, too long, empty, or the stored hash itself")
  func forgedCookies() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.owner, email: "ana@example.com")
    let stored = Digest.sha256Hex(ana.cookie)
    for forged in [
      ConsoleSessions.token(), String(repeating: "A", count: 10_000), "", stored, ana.cookie + "x",
      String(ana.cookie.dropLast()),
    ] {
      var user = ana
      user.cookie = forged
      let answer = try await server.console("GET", "/v1/admin/app", as: user)
      #expect(answer.status == 401, "\(forged.prefix(20))")
      #expect(["session_expired", "missing_credentials"].contains(answer.errorCode ?? ""), "\(answer.errorCode ?? "")")
    }
    #expect(try await server.console("GET", "/v1/admin/app", as: ana).status == 200)
  }

  @Test("a sign-in always gets a new session id: one planted before it is never adopted")
  func fixation() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.viewer, email: "ana@example.com")
    let planted = "attacker-chosen-session-id-000000000000000"
    let signedIn = try await server.signIn(ana.email, ana.password, cookie: planted)
    let user = try ConsoleUser(email: ana.email, password: ana.password, answer: signedIn)
    #expect(user.cookie != planted && user.cookie != ana.cookie)
    #expect(user.cookie.count >= 43)
    let attacker = ConsoleUser(email: "", password: "", cookie: planted, csrf: "")
    #expect(try await server.console("GET", "/v1/admin/app", as: attacker).status == 401)
    // Ids are stored hashed only.
    #expect(try server.server.store.database.session(idHash: user.cookie) == nil)
    #expect(try server.server.store.database.session(idHash: Digest.sha256Hex(user.cookie)) != nil)
  }

  @Test("a console change needs the session's CSRF token and the console's origin")
  func forgery() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let editor = try await server.person(.editor)
    let document = try String(
      contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"), encoding: .utf8)
    let noToken = try await server.console("PUT", "/v1/admin/config", as: editor, json: document, csrf: false)
    #expect(noToken.status == 403)
    #expect(noToken.errorCode == "csrf_failed")
    var wrong = editor
    wrong.csrf = String(editor.csrf.reversed())
    #expect(try await server.console("PUT", "/v1/admin/config", as: wrong, json: document).errorCode == "csrf_failed")
    let crossOrigin = try await server.console(
      "PUT", "/v1/admin/config", as: editor, json: document, origin: "https://evil.example")
    #expect(crossOrigin.errorCode == "csrf_failed")
    #expect(try await server.console("PUT", "/v1/admin/config", as: editor, json: document, origin: nil).status == 403)
    // Another session's token does not do either.
    let other = try await server.person(.editor)
    wrong.csrf = other.csrf
    #expect(try await server.console("PUT", "/v1/admin/config", as: wrong, json: document).status == 403)
    // Reads need no token; the right token from the right origin applies the change.
    #expect(try await server.console("GET", "/v1/admin/config", as: editor, csrf: false).status != 403)
    let applied = try await server.console("PUT", "/v1/admin/config", as: editor, json: document)
    #expect(applied.status == 200)
    // A cross-site sign-in is refused too (login CSRF).
    let crossSignIn = try await server.send(
      "POST", "/v1/console/sign-in", headers: ["Origin": "https://evil.example", "Host": "127.0.0.1"],
      body: Data(#"{"email":"\#(editor.email)","password":"\#(editor.password)"}"#.utf8))
    #expect(crossSignIn.errorCode == "csrf_failed")
  }

  @Test("the audit log names the person, and an owner's changes to people are in it")
  func audit() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let editor = try await server.person(.editor, email: "ed@example.com")
    let document = try String(
      contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"), encoding: .utf8)
    #expect(try await server.console("PUT", "/v1/admin/config", as: editor, json: document).status == 200)
    let log = try await server.admin("GET", "/v1/admin/audit")
    let entries = log.json?.objectValue?["entries"]?.arrayValue?.compactMap(\.objectValue) ?? []
    #expect(entries.first?["action"] == .string("config.applied"))
    #expect(entries.first?["actor"] == .string("ed@example.com"))
    // Where from: the client's address and the console session (not the session id itself).
    #expect(entries.first?["address"] == .string("127.0.0.1"))
    let session = try #require(entries.first?["session"]?.stringValue)
    #expect(session.hasPrefix("ses_") && session.count == 16 && !session.contains(editor.cookie))
    // A key's action has an address and no session.
    let invited = try #require(entries.first { $0["action"] == .string("person.invited") })
    #expect(invited["address"] == .string("127.0.0.1") && invited["session"] == nil)
    let theirs = try await server.admin("GET", "/v1/admin/audit?actor=ed@example.com")
    let actors = Set(theirs.json?.objectValue?["entries"]?.arrayValue?.compactMap { $0.objectValue?["actor"] } ?? [])
    #expect(actors == [.string("ed@example.com")])
    #expect(entries.contains { $0["action"] == .string("person.joined") && $0["actor"] == .string("ed@example.com") })
    #expect(entries.contains { $0["action"] == .string("person.invited") })
    let history = try await server.admin("GET", "/v1/admin/config/history")
    #expect(
      history.json?.objectValue?["revisions"]?.arrayValue?.first?.objectValue?["applied_by"]
        == .string("ed@example.com"))
  }

  @Test("an owner changes roles, removes and disables people; disabling ends their sessions at once")
  func owners() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let owner = try await server.person(.owner, email: "olga@example.com")
    let editor = try await server.person(.editor, email: "ed@example.com")
    let list = try await server.console("GET", "/v1/admin/people", as: owner)
    let people = list.json?.objectValue?["people"]?.arrayValue?.compactMap(\.objectValue) ?? []
    #expect(people.map { $0["email"] } == [.string("ed@example.com"), .string("olga@example.com")])
    guard case .int(let editorId) = people[0]["id"], case .int(let ownerId) = people[1]["id"] else {
      Issue.record("no ids")
      return
    }
    // The editor cannot manage people.
    let refused = try await server.console("GET", "/v1/admin/people", as: editor)
    #expect(refused.status == 403)
    #expect(refused.errorMessage?.contains("people:write") == true)

    let promoted = try await server.console(
      "PUT", "/v1/admin/people/\(editorId)", as: owner, json: #"{"role":"analyst"}"#)
    #expect(promoted.json?.objectValue?["role"] == .string("analyst"))
    #expect(
      try await server.console("PUT", "/v1/admin/people/\(editorId)", as: owner, json: #"{"role":"god"}"#).status == 422
    )
    // The last owner stays an owner.
    let demote = try await server.console("PUT", "/v1/admin/people/\(ownerId)", as: owner, json: #"{"role":"viewer"}"#)
    #expect(demote.status == 422)
    #expect(try await server.console("POST", "/v1/admin/people/\(ownerId)/disable", as: owner).status == 403)

    #expect(try await server.console("GET", "/v1/admin/app", as: editor).status == 200)
    let disabled = try await server.console("POST", "/v1/admin/people/\(editorId)/disable", as: owner)
    #expect(disabled.json?.objectValue?["disabled"] == .bool(true))
    #expect(try await server.console("GET", "/v1/admin/app", as: editor).status == 401)
    #expect(try await server.signIn(editor.email, editor.password).status == 401)
    _ = try await server.console("POST", "/v1/admin/people/\(editorId)/enable", as: owner)
    let back = try ConsoleUser(
      email: editor.email, password: editor.password, answer: try await server.signIn(editor.email, editor.password))
    #expect(try await server.console("GET", "/v1/admin/app", as: back).status == 200)
    #expect(try await server.console("DELETE", "/v1/admin/people/\(editorId)", as: owner).status == 200)
    #expect(try await server.console("GET", "/v1/admin/app", as: back).status == 403)
    #expect(try await server.console("DELETE", "/v1/admin/people/999", as: owner).errorCode == "person_not_found")
  }

  @Test("changing the password needs the current one and ends the other sessions")
  func passwordChange() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let ana = try await server.person(.viewer, email: "ana@example.com")
    let laptop = try ConsoleUser(
      email: ana.email, password: ana.password, answer: try await server.signIn(ana.email, ana.password))
    let wrong = try await server.console(
      "POST", "/v1/console/password", as: ana,
      json: #"{"current_password":"nope","new_password":"a brand new passphrase"}"#)
    #expect(wrong.status == 422)
    let weak = try await server.console(
      "POST", "/v1/console/password", as: ana,
      json: #"{"current_password":"\#(ana.password)","new_password":"password1234"}"#)
    #expect(weak.errorCode == "weak_password")
    let changed = try await server.console(
      "POST", "/v1/console/password", as: ana,
      json: #"{"current_password":"\#(ana.password)","new_password":"a brand new passphrase"}"#)
    #expect(changed.status == 200)
    let renewed = try ConsoleUser(email: ana.email, password: "a brand new passphrase", answer: changed)
    #expect(try await server.console("GET", "/v1/admin/app", as: laptop).status == 401)
    #expect(try await server.console("GET", "/v1/admin/app", as: ana).status == 401)
    #expect(try await server.console("GET", "/v1/admin/app", as: renewed).status == 200)
    #expect(try await server.signIn(ana.email, "a brand new passphrase").status == 200)
  }
}

@Suite("Session cookies behind HTTPS")
struct SecureCookieTests {
  @Test("the cookie is Secure when a trusted proxy says the client used HTTPS, and only then")
  func behindProxy() async throws {
    var limits = RateLimits()
    limits.trustedProxies = ["127.0.0.1"]
    let server = try TestServer(rateLimits: limits, mode: .inProcess)
    defer { server.stop() }
    let token = try await server.invite("ana@example.com", role: .viewer)
    let body = Data(#"{"password":"tangerine-kayak-orbit"}"#.utf8)
    let accepted = try await server.send(
      "POST", "/v1/console/invitations/\(token)/accept",
      headers: ["Host": "tg.example.com", "Origin": "https://tg.example.com", "X-Forwarded-Proto": "https"], body: body)
    #expect(accepted.status == 200)
    #expect(accepted.header("Set-Cookie")?.hasSuffix("; Secure") == true)
    // From the proxy, but plain HTTP: not Secure (the browser would drop it otherwise).
    let plain = try await server.send(
      "POST", "/v1/console/sign-in", headers: ["Host": "tg.example.com", "Origin": "http://tg.example.com"],
      body: Data(#"{"email":"ana@example.com","password":"tangerine-kayak-orbit"}"#.utf8))
    #expect(plain.status == 200)
    #expect(plain.header("Set-Cookie")?.contains("Secure") == false)
  }

  @Test("an untrusted peer saying X-Forwarded-Proto: https does not make the cookie Secure")
  func untrusted() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let token = try await server.invite("ana@example.com", role: .viewer)
    let accepted = try await server.send(
      "POST", "/v1/console/invitations/\(token)/accept",
      headers: ["Host": "127.0.0.1", "Origin": "http://127.0.0.1", "X-Forwarded-Proto": "https"],
      body: Data(#"{"password":"tangerine-kayak-orbit"}"#.utf8))
    #expect(accepted.status == 200)
    #expect(accepted.header("Set-Cookie")?.contains("Secure") == false)
  }
}

@Suite("The console's public address")
struct PublicURLTests {
  @Test("with --public-url https://…: cookies are Secure, links point there, changes come only from that origin")
  func publicURL() async throws {
    let server = try TestServer(mode: .inProcess, publicURL: "https://tg.example.com")
    defer { server.stop() }
    let invited = try await server.admin(
      "POST", "/v1/admin/invitations", json: #"{"email":"ed@example.com","role":"editor"}"#)
    let url = try #require(invited.json?.objectValue?["url"]?.stringValue)
    #expect(url.hasPrefix("https://tg.example.com/dashboard/#invitation="))
    let token = String(url.split(separator: "=").last!)
    let accepted = try await server.send(
      "POST", "/v1/console/invitations/\(token)/accept",
      headers: ["Host": "10.0.0.7:8080", "Origin": "https://tg.example.com"],
      body: Data(#"{"password":"tangerine-kayak-orbit"}"#.utf8))
    #expect(accepted.status == 200)
    #expect(accepted.header("Set-Cookie")?.hasSuffix("; Secure") == true)
    let editor = try ConsoleUser(email: "ed@example.com", password: "tangerine-kayak-orbit", answer: accepted)
    // The request's own host is not the console's origin here.
    let fromHost = try await server.console(
      "PUT", "/v1/admin/config", as: editor, json: "{}", origin: "http://127.0.0.1")
    #expect(fromHost.errorCode == "csrf_failed")
    let fromConsole = try await server.console(
      "PUT", "/v1/admin/config", as: editor, json: "{}", origin: "https://tg.example.com")
    #expect(fromConsole.status != 403)
  }
}

@Suite("Forgetting what sign-in leaves behind")
struct PeopleCleanupTests {
  @Test("stale sessions, failure counts and old invitations go; open sessions, locks and live invitations stay")
  func cleanup() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let database = server.server.store.database
    let ana = try await server.person(.viewer, email: "ana@example.com")
    let ended = try ConsoleUser(
      email: ana.email, password: ana.password, answer: try await server.signIn(ana.email, ana.password))
    _ = try await server.console("POST", "/v1/console/sign-out", as: ended)
    // Failures: one for an e-mail nobody has, and a locked account.
    _ = try await server.signIn("nobody@example.com", "whatever it might be")
    try database.updateSignInFailures(key: "account:ben@example.com") { _ in
      SignInThrottle.Record(failures: 20, lastFailure: server.time.now(), lockedUntil: server.time.now() + 3 * 86_400)
    }
    let open = try await server.invite("late@example.com", role: .viewer)
    #expect(server.server.service.peopleCleanup.pass() == 0)

    server.time.advance(days: 2)
    _ = try await server.console("GET", "/v1/admin/app", as: ana)  // in use: stays open
    // The ended session, the unknown e-mail's and the address's counts go; the lock stays.
    #expect(server.server.service.peopleCleanup.pass() == 3)
    #expect(try database.session(idHash: Digest.sha256Hex(ended.cookie)) == nil)
    #expect(try database.session(idHash: Digest.sha256Hex(ana.cookie)) != nil)
    #expect(try database.signInFailures(key: "account:nobody@example.com").failures == 0)
    #expect(try database.signInFailures(key: "account:ben@example.com").lockedUntil != nil)
    #expect(try await server.send("GET", "/v1/console/invitations/\(open)").status == 200)

    // Past the absolute expiry, past the lock, 30 days past the invitation's end.
    server.time.advance(days: 40)
    #expect(server.server.service.peopleCleanup.pass() == 4)
    #expect(try database.session(idHash: Digest.sha256Hex(ana.cookie)) == nil)
    #expect(try database.signInFailures(key: "account:ben@example.com").failures == 0)
    #expect(try database.invitation(tokenHash: Digest.sha256Hex(open)) == nil)
  }
}
