import Foundation
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// A browser going through single sign-on against a test server and the stand-in provider: the
/// server's own calls to the provider (discovery, keys, token) go over loopback HTTP.
struct SignOnBrowser {
  let server: TestServer
  let provider: OpenIDProviderSandbox

  /// Where a sign-in ended.
  struct Outcome {
    /// The console URL the browser lands on.
    let location: String
    /// The session cookie, when one was opened.
    let session: String?
    /// `#sso_error=` when refused.
    var error: String? { location.components(separatedBy: "#sso_error=").dropFirst().first }
  }

  /// Clicks "Sign in with …", types `email` at the provider (or cancels), and comes back;
  /// `cookie: false` comes back without the state cookie, `beforeReturn` runs at the provider.
  func signIn(
    _ email: String, cancel: Bool = false, cookie: Bool = true, beforeReturn: () -> Void = {}
  ) async throws -> (Outcome, callback: String, state: String) {
    let started = try await server.send("GET", "/v1/console/sso/start", headers: ["Host": "127.0.0.1"])
    #expect(started.status == 303)
    let location = try #require(started.header("Location"))
    let stateCookie = try #require(started.header("Set-Cookie"))
    #expect(stateCookie.contains("HttpOnly") && stateCookie.contains("SameSite=Lax"))
    let state = String(stateCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1)[1])
    let query = Dictionary(
      uniqueKeysWithValues: (URLComponents(string: location)?.queryItems ?? []).map { ($0.name, $0.value ?? "") })
    #expect(query["state"] == state)
    #expect(query["code_challenge_method"] == "S256")
    #expect(query["redirect_uri"] == "http://127.0.0.1/v1/console/sso/callback")
    // The provider's page, then its form.
    let page = provider.answer(
      Request(
        method: "GET", path: "/authorize", query: query, headers: [:], body: Data()))
    #expect(page.status == 200)
    var form = query.filter { ["redirect_uri", "state", "nonce", "code_challenge"].contains($0.key) }
    form["email"] = email
    form["decision"] = cancel ? "deny" : "approve"
    let body = form.map { "\($0.key)=\(URLSessionOpenIDClient.formEncode($0.value))" }.joined(separator: "&")
    let approved = provider.answer(
      Request(method: "POST", path: "/authorize", query: [:], headers: [:], body: Data(body.utf8)))
    #expect(approved.status == 302)
    beforeReturn()
    let back = try #require(approved.header("Location").flatMap { URLComponents(string: $0) })
    let callback = back.path + "?" + (back.percentEncodedQuery ?? "")
    return (try await come(back: callback, state: cookie ? state : nil), callback, state)
  }

  /// The provider's redirect back, with the state cookie the browser holds.
  func come(back callback: String, state: String?) async throws -> Outcome {
    var headers = ["Host": "127.0.0.1"]
    if let state { headers["Cookie"] = "tollgate_sso_state=\(state)" }
    let answer = try await server.send("GET", callback, headers: headers)
    #expect(answer.status == 303)
    let cookie = answer.header("Set-Cookie") ?? ""
    let session =
      cookie.hasPrefix("tollgate_session=")
      ? String(cookie.split(separator: ";")[0].dropFirst("tollgate_session=".count)) : nil
    return Outcome(location: answer.header("Location") ?? "", session: session)
  }
}

@Suite("Single sign-on: OpenID Connect with PKCE against the stand-in provider")
struct SingleSignOnTests {
  /// A server, a provider and single sign-on set up between them.
  static func setUp(
    algorithm: OpenIDProviderSandbox.Algorithm = .rs256, domains: [String] = [], defaultRole: String? = nil
  ) async throws -> (TestServer, OpenIDProviderSandbox, SignOnBrowser) {
    let server = try TestServer(mode: .inProcess)
    let provider = try OpenIDProviderSandbox(
      clientId: "tollgate-test", clientSecret: "s3cret/with+odd=chars", algorithm: algorithm,
      clock: { server.time.now() })
    let issuer = try provider.start()
    _ = try await service(server).configure(
      .init(
        issuer: issuer, clientId: "tollgate-test", clientSecret: "s3cret/with+odd=chars\n", label: "Acme",
        allowedDomains: domains, defaultApp: defaultRole == nil ? nil : "alpha", defaultRole: defaultRole),
      check: true, by: "test")
    return (server, provider, SignOnBrowser(server: server, provider: provider))
  }

  static func service(_ server: TestServer) throws -> SingleSignOnService {
    SingleSignOnService(
      store: server.server.store.database, apps: server.server.store.database, provider: URLSessionOpenIDClient(),
      secrets: try SecretBox(key: Array(repeating: 7, count: 32)), sessions: nil, time: server.time,
      logger: Logger(level: .error))
  }

  @Test(
    "an invited person signs in through the provider and gets the invited role; the next sign-in is the same person")
  func invited() async throws {
    let (server, provider, browser) = try await Self.setUp()
    defer {
      server.stop()
      provider.stop()
    }
    let shown = try await server.send("GET", "/v1/console/sso")
    #expect(shown.json?.objectValue?["enabled"] == .bool(true))
    #expect(shown.json?.objectValue?["label"] == .string("Acme"))
    _ = try await server.invite("Dana@Example.com", role: .analyst)

    let (first, _, _) = try await browser.signIn("dana@example.com")
    #expect(first.location == "http://127.0.0.1/dashboard/")
    let cookie = try #require(first.session)
    let session = try await server.send(
      "GET", "/v1/console/session", headers: ["Cookie": "tollgate_session=\(cookie)", "Host": "127.0.0.1"])
    #expect(session.status == 200)
    #expect(session.json?.objectValue?["person"]?.objectValue?["email"] == .string("dana@example.com"))
    #expect(session.json?.objectValue?["apps"]?.arrayValue?.first?.objectValue?["role"] == .string("analyst"))
    #expect(session.json?.objectValue?["person"]?.objectValue?["has_password"] == .bool(false))
    #expect(session.json?.objectValue?["person"]?.objectValue?["signed_in_with"] == .string("sso"))
    // No password was ever set: a password sign-in cannot open this account.
    let stored = try #require(try server.server.store.database.person(email: "dana@example.com"))
    #expect(stored.passwordHash == nil)
    #expect(try await server.signIn("dana@example.com", "").status == 401)
    // The analyst reads reports and nothing else.
    let user = ConsoleUser(email: "dana@example.com", password: "", cookie: cookie, csrf: "")
    #expect(try await server.console("GET", "/v1/admin/stats/subscriptions", as: user).status == 200)
    #expect(try await server.console("GET", "/v1/admin/keys", as: user).status == 403)

    let (second, _, _) = try await browser.signIn("DANA@example.com")
    #expect(second.session != nil && second.session != first.session)
    let linked = try server.server.store.database.person(
      issuer: try #require(try server.server.store.database.singleSignOn()).settings.issuer,
      subject: "user-" + Digest.sha256Hex("dana@example.com").prefix(16))
    #expect(linked?.id == stored.id)
    #expect(provider.issued == 2)
    let alpha = try #require(try server.server.store.database.app(named: "alpha"))
    let audit = try server.server.store.database.auditLog(appId: alpha.id, before: nil, limit: 20, actor: nil)
    #expect(audit.contains { $0.action == "person.joined" && $0.detail.contains("sso") })
  }

  @Test(
    "an ID token with a wrong aud, iss, nonce, signature, key or algorithm, or expired, opens no session",
    arguments: OpenIDProviderSandbox.Tamper.allCases)
  func defectiveTokens(_ tamper: OpenIDProviderSandbox.Tamper) async throws {
    let (server, provider, browser) = try await Self.setUp()
    defer {
      server.stop()
      provider.stop()
    }
    _ = try await server.invite("eve@example.com", role: .owner)
    provider.tamper(tamper)
    let (outcome, _, _) = try await browser.signIn("eve@example.com")
    #expect(outcome.session == nil)
    #expect(outcome.error == (tamper == .unverifiedEmail ? "email_unverified" : "token_invalid"))
    #expect(try server.server.store.database.person(email: "eve@example.com") == nil)
    #expect(server.log.all.contains { $0.contains("single sign-on") && $0.contains("refused") })
  }

  @Test("ES256 providers work too")
  func es256() async throws {
    let (server, provider, browser) = try await Self.setUp(algorithm: .es256)
    defer {
      server.stop()
      provider.stop()
    }
    _ = try await server.invite("eli@example.com", role: .viewer)
    #expect(try await browser.signIn("eli@example.com").0.session != nil)
  }

  @Test("the state binds the sign-in to its browser, once, for ten minutes; a cancel at the provider says so")
  func state() async throws {
    let (server, provider, browser) = try await Self.setUp()
    defer {
      server.stop()
      provider.stop()
    }
    _ = try await server.invite("fay@example.com", role: .editor)
    // Someone else's callback link (login CSRF): this browser holds no matching cookie.
    let foreign = try await browser.signIn("fay@example.com", cookie: false)
    #expect(foreign.0.error == "expired" && foreign.0.session == nil)
    let wrongCookie = try await browser.come(back: foreign.callback, state: "forged")
    #expect(wrongCookie.error == "expired")
    // Finished once; the same callback again is refused.
    let done = try await browser.signIn("fay@example.com")
    #expect(done.0.session != nil)
    #expect(try await browser.come(back: done.callback, state: done.state).error == "expired")
    // Eleven minutes at the provider.
    let late = try await browser.signIn("fay@example.com") { server.time.advance(days: 11.0 / 1_440) }
    #expect(late.0.error == "expired")
    #expect(try await browser.signIn("fay@example.com", cancel: true).0.error == "cancelled")
    // No state at all.
    #expect(try await browser.come(back: "/v1/console/sso/callback?code=x", state: nil).error == "expired")
  }

  @Test("allowed domains, a default role for the uninvited, and disabled people")
  func domains() async throws {
    let (server, provider, browser) = try await Self.setUp(domains: ["example.com"], defaultRole: "viewer")
    defer {
      server.stop()
      provider.stop()
    }
    let joined = try await browser.signIn("gus@example.com")
    let cookie = try #require(joined.0.session)
    let session = try await server.send(
      "GET", "/v1/console/session", headers: ["Cookie": "tollgate_session=\(cookie)", "Host": "127.0.0.1"])
    #expect(session.json?.objectValue?["apps"]?.arrayValue?.first?.objectValue?["role"] == .string("viewer"))
    #expect(try await browser.signIn("mallory@example.org").0.error == "domain_not_allowed")
    // Even someone invited must come from an allowed domain.
    _ = try await server.invite("ivy@partner.net", role: .editor)
    #expect(try await browser.signIn("ivy@partner.net").0.error == "domain_not_allowed")
    // Disabled: refused, and their open session ended.
    _ = try PeopleService(database: server.server.store.database, time: server.time).setDisabled(
      email: "gus@example.com", disabled: true, by: "test")
    #expect(try await browser.signIn("gus@example.com").0.error == "disabled")
  }

  @Test("without a default role, someone nobody invited is refused")
  func notInvited() async throws {
    let (server, provider, browser) = try await Self.setUp(domains: ["example.com"])
    defer {
      server.stop()
      provider.stop()
    }
    #expect(try await browser.signIn("hal@example.com").0.error == "not_invited")
    #expect(try server.server.store.database.person(email: "hal@example.com") == nil)
  }

  @Test(
    "someone with a password account is matched by e-mail; a single sign-on session is not asked for the app's second factor"
  )
  func existingAndTwoFactorPolicy() async throws {
    let (server, provider, browser) = try await Self.setUp()
    defer {
      server.stop()
      provider.stop()
    }
    let owner = try await server.person(.owner, email: "own@example.com")
    #expect(
      try await server.console("PUT", "/v1/admin/security", as: owner, json: #"{"require_two_factor":true}"#).status
        == 200)
    let outcome = try await browser.signIn("own@example.com").0
    let user = ConsoleUser(email: owner.email, password: "", cookie: try #require(outcome.session), csrf: "")
    #expect(try await server.console("GET", "/v1/admin/app", as: user).status == 200)
    // The password session is still held to the policy.
    #expect(try await server.console("GET", "/v1/admin/app", as: owner).errorCode == "two_factor_required")
  }

  @Test("sso set refuses what cannot work")
  func configureRefusals() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    let provider = try OpenIDProviderSandbox(clientId: "c", clientSecret: "s")
    let issuer = try provider.start()
    defer { provider.stop() }
    let service = try Self.service(server)
    func refusal(_ setup: SingleSignOnService.Setup, check: Bool = true) async -> String {
      do {
        _ = try await service.configure(setup, check: check, by: "test")
        return "accepted"
      } catch { return "\(error)" }
    }
    func setup(issuer: String = issuer, secret: String = "s", domains: [String] = [], role: String? = nil)
      -> SingleSignOnService.Setup
    {
      .init(
        issuer: issuer, clientId: "c", clientSecret: secret, label: nil, allowedDomains: domains,
        defaultApp: role == nil ? nil : "alpha", defaultRole: role)
    }
    #expect(await refusal(setup(issuer: "http://idp.example.com")).contains("https"))
    #expect(await refusal(setup(secret: " \n")).contains("secret"))
    #expect(await refusal(setup(role: "viewer")).contains("--allowed-domains"))
    #expect(await refusal(setup(domains: ["example.com"], role: "owner")).contains("owner"))
    #expect(await refusal(setup(domains: ["@example.com"])).contains("not a domain"))
    #expect(await refusal(setup(issuer: issuer + "/other")).contains("discovery"))
    #expect(await refusal(setup(issuer: "http://127.0.0.1:9")).contains("discovery"))
    #expect(await refusal(setup()) == "accepted")
    // Stored sealed: the secret itself is not in the database.
    let record = try #require(try server.server.store.database.singleSignOn())
    #expect(!record.sealedSecret.contains("s") || record.sealedSecret != "s")
    #expect(try SecretBox(key: Array(repeating: 7, count: 32)).open(record.sealedSecret) == "s")
    try service.remove()
    #expect(try await server.send("GET", "/v1/console/sso").json?.objectValue?["enabled"] == .bool(false))
    let off = try await server.send("GET", "/v1/console/sso/start", headers: ["Host": "127.0.0.1"])
    #expect(off.header("Location") == "http://127.0.0.1/dashboard/#sso_error=not_configured")
  }

  @Test("who signs in is decided from the claims and the stored people alone")
  func match() throws {
    func claims(_ email: String?, verified: Bool? = true) throws -> IDTokenClaims {
      var object: [String: Any] = ["iss": "https://idp", "sub": "1", "aud": "c", "exp": 2e9]
      if let email { object["email"] = email }
      if let verified { object["email_verified"] = verified }
      return try JSONDecoder().decode(IDTokenClaims.self, from: JSONSerialization.data(withJSONObject: object))
    }
    let open = SingleSignOnSettings(
      issuer: "https://idp", clientId: "c", label: "", allowedDomains: [],
      defaultMembership: .init(appId: 1, role: .viewer))
    var closed = open
    closed.allowedDomains = ["example.com"]
    #expect(
      try SignOnMatch.decide(
        claims: claims("a@example.com"), settings: open, linked: (5, false), byEmail: nil, invitations: 0)
        == .existing(personId: 5))
    #expect(
      try SignOnMatch.decide(claims: claims("a@example.com"), settings: open, linked: nil, byEmail: nil, invitations: 2)
        == .invited)
    // A default role without an allow-list would let anyone in.
    #expect(throws: SingleSignOnRefusal.self) {
      try SignOnMatch.decide(claims: claims("a@example.com"), settings: open, linked: nil, byEmail: nil, invitations: 0)
    }
    #expect(
      try SignOnMatch.decide(
        claims: claims("a@EXAMPLE.com"), settings: closed, linked: nil, byEmail: nil, invitations: 0)
        == .defaultRole(.init(appId: 1, role: .viewer)))
    for (email, verified) in [(nil, true), ("a@example.com", false)] as [(String?, Bool?)] {
      #expect(throws: SingleSignOnRefusal.self) {
        try SignOnMatch.decide(
          claims: claims(email, verified: verified), settings: open, linked: (5, false), byEmail: nil, invitations: 0)
      }
    }
    // `"email_verified": "true"` as a string counts.
    let stringly = try JSONDecoder().decode(
      IDTokenClaims.self,
      from: Data(#"{"iss":"i","sub":"s","aud":["c","d"],"exp":1,"email_verified":"true"}"#.utf8))
    #expect(stringly.emailVerified == true && stringly.aud == ["c", "d"])
  }
}
