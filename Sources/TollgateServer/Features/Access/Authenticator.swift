import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Who a request acts as. SDK routes take `Api-Key <public key>`; admin routes take `Bearer
/// <secret key>` (a machine: every permission) or a console session cookie, with the app named
/// in `X-Tollgate-App` (a person: their role's permissions in that app). A session's
/// state-changing request must also carry the session's CSRF token and come from the console's
/// origin. Whether a key opens a route is `KeyVerifier`'s answer; whether a session is open is
/// `ConsoleSessions`'.
struct Authenticator: Sendable {
  /// Who a request acts as.
  struct Caller: Sendable {
    let appId: Int64
    /// A key id or a person's e-mail (audit log, config history).
    let actor: String
    /// The person, when a session made the request.
    let personId: Int64?
    /// The session's public label (`ses_…`), when a session made the request.
    var session: String? = nil
  }

  let keys: KeyVerifier
  let sessions: ConsoleSessions
  let people: any PeopleRepository
  /// Where the console is served from (`--public-url`), when set: the only `Origin` accepted
  /// for a session's writes. Unset, the request's own `Host` is the origin.
  let consoleOrigin: String?
  /// Proxies whose `X-Forwarded-For` names the client (audit entries' address).
  let trustedProxies: Set<String>

  /// The app the request may act for, or 401/403.
  func appId(for request: Request, needs kind: KeyKind) throws -> Int64 {
    try keyCaller(for: request, needs: kind).appId
  }

  /// The app and key the request acts as, or 401/403.
  func caller(for request: Request, needs kind: KeyKind) throws -> Caller {
    let key = try keyCaller(for: request, needs: kind)
    return Caller(appId: key.appId, actor: key.keyId, personId: nil)
  }

  /// The caller of an admin route that needs `permission`, or 401 (no or a dead credential),
  /// 403 `forbidden` naming the permission, 403 `csrf_failed`.
  func caller(for request: Request, needs permission: Permission) throws -> Caller {
    guard request.header("authorization") == nil, let cookie = request.cookie(ConsoleSessions.cookieName) else {
      let key = try keyCaller(for: request, needs: .secretKey)
      guard key.permissions.contains(permission) else {
        throw DomainError(.forbidden, "This key's scopes do not allow \(permission.rawValue).")
      }
      return Caller(appId: key.appId, actor: key.keyId, personId: nil)
    }
    let current = try sessions.current(cookie: cookie)
    if request.method != "GET" && request.method != "HEAD" { try checkForgery(request, current.session) }
    let memberships = try people.memberships(personId: current.person.id)
    let membership: MembershipRecord
    if let name = request.header("x-tollgate-app"), !name.isEmpty {
      guard let found = memberships.first(where: { $0.appName == name }) else {
        throw DomainError(.forbidden, "You are not a member of the app \(name).")
      }
      membership = found
    } else if memberships.count == 1 {
      membership = memberships[0]
    } else {
      throw DomainError(.missingParameter, "Name the app in the X-Tollgate-App header.")
    }
    // A single sign-on session passed the provider's own checks (its second factor included):
    // the policy applies to password sign-ins.
    if membership.requiresTwoFactor, current.person.twoFactorSince == nil, current.session.method != "sso" {
      throw DomainError(
        .twoFactorRequired,
        "The owners of \(membership.appName) require two-factor sign-in: set it up on your account page first.")
    }
    guard membership.role.allows(permission) else {
      throw DomainError(
        .forbidden,
        "Your role in \(membership.appName), \(membership.role.rawValue), does not allow \(permission.rawValue).")
    }
    return Caller(
      appId: membership.appId, actor: current.person.email, personId: current.person.id,
      session: "ses_" + current.session.idHash.prefix(12))
  }

  /// The session's CSRF token in `X-CSRF-Token`, and an `Origin` (or, without one, `Referer`)
  /// that is the console's: a page elsewhere cannot make the browser act with the cookie.
  func checkForgery(_ request: Request, _ session: SessionRecord) throws {
    guard let token = request.header("x-csrf-token"), Self.same(token, session.csrfToken) else {
      throw DomainError(.csrfFailed, "Send the session's CSRF token as X-CSRF-Token.")
    }
    try checkOrigin(request, required: true)
  }

  /// Refuses a request whose `Origin` (or `Referer`) is another site's; `required`: one of them
  /// must be there.
  func checkOrigin(_ request: Request, required: Bool) throws {
    let stated = request.header("origin") ?? request.header("referer").map(Self.origin(of:))
    guard let stated, stated != "null" else {
      if required { throw DomainError(.csrfFailed, "A console request states its Origin.") }
      return
    }
    let expected: [String]
    if let consoleOrigin {
      expected = [consoleOrigin]
    } else if let host = request.header("host") {
      expected = ["http://" + host, "https://" + host]
    } else {
      expected = []
    }
    guard expected.contains(stated.lowercased()) else {
      throw DomainError(.csrfFailed, "This request comes from \(stated), not from the console's origin.")
    }
  }

  /// `scheme://host[:port]` of a URL.
  static func origin(of url: String) -> String {
    guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host else { return url }
    return "\(scheme)://\(host)" + (parts.port.map { ":\($0)" } ?? "")
  }

  /// Compares without stopping at the first difference.
  static func same(_ left: String, _ right: String) -> Bool {
    let (a, b) = (Array(left.utf8), Array(right.utf8))
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
  }

  private func keyCaller(for request: Request, needs kind: KeyKind) throws -> KeyVerifier.Caller {
    guard let header = request.header("authorization"), !header.isEmpty else {
      throw DomainError(
        .missingCredentials,
        kind == .publicKey
          ? "Send the app's public key as 'Authorization: Api-Key <key>'."
          : "Send an admin key as 'Authorization: Bearer <key>', or sign in to the console.")
    }
    // Plain byte-level parsing: this runs on every request (Foundation's trimming is costly).
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, ["api-key", "bearer"].contains(parts[0].lowercased()) else {
      throw DomainError(.invalidCredentials, "Authorization must be 'Api-Key <key>' or 'Bearer <key>'.")
    }
    var text = parts[1]
    while let last = text.utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { text = text.dropLast() }
    return try keys.verify(String(text), needs: kind)
  }

  /// Forgets cached keys at once (a key was revoked through this instance).
  func forgetAll() { keys.forgetAll() }
}

extension Router {
  /// Registers an admin route that needs `permission`: the route table says so (a test walks
  /// it with every role), and the handler runs only for a caller allowed it.
  mutating func add(
    _ method: String, _ pattern: String, needs permission: Permission, _ auth: Authenticator,
    _ handler: @escaping @Sendable (Request, Authenticator.Caller) throws -> Response
  ) {
    add(method, pattern, permission: permission.rawValue) { request in
      let caller = try auth.caller(for: request, needs: permission)
      let origin = RequestOrigin(address: request.address(trusting: auth.trustedProxies), session: caller.session)
      return try RequestOrigin.$current.withValue(origin) { try handler(request, caller) }
    }
  }
}
