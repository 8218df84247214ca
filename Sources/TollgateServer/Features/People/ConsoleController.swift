import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The console's own routes: `POST /v1/console/sign-in`, `GET /v1/console/session`, `POST
/// /v1/console/sign-out`, `POST /v1/console/sign-out-everywhere`, `POST /v1/console/password`,
/// `GET /v1/console/invitations/{token}` and `POST /v1/console/invitations/{token}/accept`.
/// A session lives in an `HttpOnly; SameSite=Strict` cookie (`Secure` behind HTTPS); the
/// answer carries the CSRF token the console sends back with each change.
struct ConsoleController: Sendable {
  let sessions: ConsoleSessions
  let people: PeopleService
  let twoFactor: TwoFactorService
  let memberships: any PeopleRepository
  let auth: Authenticator
  let passwords: PasswordPolicy
  /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
  let trustedProxies: Set<String>
  /// The console is served over HTTPS (`--public-url https://…`): cookies are always `Secure`.
  let alwaysSecure: Bool

  /// `POST /v1/console/sign-in`.
  struct SignInBody: Decodable {
    var email: String
    var password: String
    /// The authenticator's code or a recovery code, for accounts with a second factor.
    var code: String?
  }

  /// `POST /v1/console/two-factor/confirm`.
  struct CodeBody: Decodable {
    var code: String
  }

  /// `POST /v1/console/two-factor/disable`.
  struct PasswordOnlyBody: Decodable {
    var password: String
  }

  /// `POST /v1/console/password`.
  struct PasswordBody: Decodable {
    var currentPassword: String
    var newPassword: String
    enum CodingKeys: String, CodingKey {
      case currentPassword = "current_password"
      case newPassword = "new_password"
    }
  }

  /// `POST /v1/console/invitations/{token}/accept`.
  struct AcceptBody: Decodable {
    var password: String
    var name: String?
  }

  func register(on router: inout Router) {
    router.add("POST", "/v1/console/sign-in") { request in
      try auth.checkOrigin(request, required: false)
      let body = try request.decodeJSON(SignInBody.self)
      let opened = try sessions.signIn(
        email: body.email, password: body.password, code: body.code,
        address: request.address(trusting: trustedProxies))
      return try answer(opened.session, opened.person, cookie: opened.id, request)
    }
    router.add("GET", "/v1/console/session") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      return try answer(current.session, current.person, cookie: nil, request)
    }
    router.add("POST", "/v1/console/sign-out") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      try auth.checkForgery(request, current.session)
      try sessions.signOut(current)
      return signedOut(request)
    }
    router.add("POST", "/v1/console/sign-out-everywhere") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      try auth.checkForgery(request, current.session)
      try sessions.signOutEverywhere(current)
      return signedOut(request)
    }
    router.add("POST", "/v1/console/password") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      try auth.checkForgery(request, current.session)
      let body = try request.decodeJSON(PasswordBody.self)
      let opened = try sessions.changePassword(
        current, from: body.currentPassword, to: body.newPassword, policy: passwords)
      return try answer(opened.session, opened.person, cookie: opened.id, request)
    }
    router.add("POST", "/v1/console/two-factor/setup") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      try auth.checkForgery(request, current.session)
      let setup = try twoFactor.begin(current.person)
      var response = Response.json(TwoFactorSetupPayload(secret: setup.secret, uri: setup.uri))
      response.headers.append(("Cache-Control", "no-store"))
      return response
    }
    router.add("POST", "/v1/console/two-factor/confirm") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      try auth.checkForgery(request, current.session)
      let codes = try twoFactor.confirm(current.person, code: try request.decodeJSON(CodeBody.self).code)
      var response = Response.json(["recovery_codes": codes])
      response.headers.append(("Cache-Control", "no-store"))
      return response
    }
    router.add("POST", "/v1/console/two-factor/disable") { request in
      let current = try sessions.current(cookie: request.cookie(ConsoleSessions.cookieName))
      try auth.checkForgery(request, current.session)
      try twoFactor.disable(current.person, password: try request.decodeJSON(PasswordOnlyBody.self).password)
      return .json(["two_factor": false])
    }
    router.add("GET", "/v1/console/invitations/{token}") { request in
      let view = try people.invitation(token: request.parameter("token"))
      return .json(
        InvitationPayload(
          email: view.invitation.email, app: view.appName, role: view.invitation.role.rawValue,
          expiresAt: Timestamp.string(view.invitation.expiresAt), existingPerson: view.existingPerson,
          resetsPassword: view.invitation.resetsPassword))
    }
    router.add("POST", "/v1/console/invitations/{token}/accept") { request in
      try auth.checkOrigin(request, required: false)
      let body = try request.decodeJSON(AcceptBody.self)
      let origin = RequestOrigin(address: request.address(trusting: trustedProxies), session: nil)
      let person = try RequestOrigin.$current.withValue(origin) {
        try people.accept(token: request.parameter("token"), password: body.password, name: body.name)
      }
      let opened = try sessions.open(person: person, address: request.address(trusting: trustedProxies))
      return try answer(opened.session, opened.person, cookie: opened.id, request)
    }
  }

  /// The session's person, apps and CSRF token; with `Set-Cookie` when a session was opened.
  private func answer(_ session: SessionRecord, _ person: PersonRecord, cookie: String?, _ request: Request) throws
    -> Response
  {
    let apps = try memberships.memberships(personId: person.id).map {
      ConsoleAppPayload(
        name: $0.appName, role: $0.role.rawValue,
        permissions: Permission.allCases.filter($0.role.allows).map(\.rawValue), requiresTwoFactor: $0.requiresTwoFactor
      )
    }
    let fresh = try memberships.person(id: person.id) ?? person
    var response = Response.json(
      ConsoleSessionPayload(
        person: PersonPayload(
          id: fresh.id, email: fresh.email, name: fresh.name, twoFactor: fresh.twoFactorSince != nil,
          recoveryCodesLeft: fresh.twoFactorSince != nil ? try twoFactor.unusedRecoveryCodes(fresh) : nil,
          hasPassword: fresh.passwordHash != nil, signedInWith: session.method),
        apps: apps,
        csrfToken: session.csrfToken,
        expiresAt: Timestamp.string(session.createdAt.addingTimeInterval(sessions.policy.absolute))))
    response.headers.append(("Cache-Control", "no-store"))
    if let cookie {
      response.headers.append(("Set-Cookie", setCookie(cookie, maxAge: Int(sessions.policy.absolute), request)))
    }
    return response
  }

  private func signedOut(_ request: Request) -> Response {
    var response = Response.json(["signed_out": true])
    response.headers.append(("Set-Cookie", setCookie("", maxAge: 0, request)))
    return response
  }

  private func setCookie(_ value: String, maxAge: Int, _ request: Request) -> String {
    ConsoleSessions.cookie(
      ConsoleSessions.cookieName, value, maxAge: maxAge, path: "/",
      alwaysSecure || request.isSecure(trusting: trustedProxies), sameSite: "Strict")
  }
}

/// `GET /v1/console/session` and the sign-in answers.
struct ConsoleSessionPayload: Codable, Sendable {
  var person: PersonPayload
  var apps: [ConsoleAppPayload]
  var csrfToken: String
  var expiresAt: String

  enum CodingKeys: String, CodingKey {
    case person, apps
    case csrfToken = "csrf_token"
    case expiresAt = "expires_at"
  }
}

/// A person as the console shows them.
struct PersonPayload: Codable, Sendable {
  var id: Int64
  var email: String
  var name: String?
  /// A second factor is on.
  var twoFactor: Bool
  /// Recovery codes not used yet (with a second factor).
  var recoveryCodesLeft: Int?
  /// False for someone who only signs in through single sign-on.
  var hasPassword: Bool
  /// How this session signed in: `password` or `sso`.
  var signedInWith: String

  enum CodingKeys: String, CodingKey {
    case id, email, name
    case twoFactor = "two_factor"
    case recoveryCodesLeft = "recovery_codes_left"
    case hasPassword = "has_password"
    case signedInWith = "signed_in_with"
  }
}

/// An app a person belongs to, their role and what it allows.
struct ConsoleAppPayload: Codable, Sendable {
  var name: String
  var role: String
  var permissions: [String]
  /// Its owners require two-factor sign-in.
  var requiresTwoFactor: Bool

  enum CodingKeys: String, CodingKey {
    case name, role, permissions
    case requiresTwoFactor = "requires_two_factor"
  }
}

/// `POST /v1/console/two-factor/setup`: shown this once.
struct TwoFactorSetupPayload: Codable, Sendable {
  var secret: String
  var uri: String
}

/// `GET /v1/console/invitations/{token}`.
struct InvitationPayload: Codable, Sendable {
  var email: String
  var app: String
  var role: String
  var expiresAt: String
  var existingPerson: Bool
  /// A password-reset link: the person chooses a new password.
  var resetsPassword: Bool

  enum CodingKeys: String, CodingKey {
    case email, app, role
    case expiresAt = "expires_at"
    case existingPerson = "existing_person"
    case resetsPassword = "resets_password"
  }
}
