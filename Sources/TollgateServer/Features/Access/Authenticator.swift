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
    guard let key = Self.credential(in: header) else {
      throw DomainError(.invalidCredentials, "Authorization must be 'Api-Key <key>' or 'Bearer <key>'.")
    }
    return try keys.verify(key, needs: kind)
  }

  /// The key of `Api-Key <key>` or `Bearer <key>` (scheme in any case, blanks around the key
  /// ignored), or nil. Read byte by byte: it runs on every request, and splitting into an
  /// array and lower-casing the scheme was a measurable share of a cached answer's time.
  static func credential(in header: String) -> String? {
    let bytes = header.utf8
    let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard let schemeStart = bytes.firstIndex(where: { !isBlank($0) }),
      let schemeEnd = bytes[schemeStart...].firstIndex(where: isBlank)
    else { return nil }
    let scheme = bytes[schemeStart..<schemeEnd]
    guard Self.equalsIgnoringCase(scheme, "api-key") || Self.equalsIgnoringCase(scheme, "bearer"),
      let keyStart = bytes[schemeEnd...].firstIndex(where: { !isBlank($0) }),
      let keyLast = bytes[keyStart...].lastIndex(where: { !isBlank($0) })
    else { return nil }
    return String(header[keyStart...keyLast])
  }

  /// ASCII comparison of `bytes` with a lower-case `word`, letters case folded.
  private static func equalsIgnoringCase(_ bytes: Substring.UTF8View, _ word: StaticString) -> Bool {
    guard bytes.count == word.utf8CodeUnitCount else { return false }
    return zip(bytes, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)).allSatisfy {
      ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0) == $1
    }
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
