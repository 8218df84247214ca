import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Who a request acts as. SDK routes take `Api-Key <public key>`; admin routes take `Bearer
/// <secret key>` (a machine: every permission) or a console session cookie, with the app named
/// in `X-Tollgate-App` (a person: their role's permissions in that app). A session's
/// state-changing request must also carry the session's CSRF token and come from the console's
/// origin. Whether a key opens a route is `KeyVerifier`'s answer (below); whether a session is open is
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
    // Parsed from the header's bytes: the key is the one string made.
    let (present, key) = request.headers.withValue("authorization") { value -> (Bool, String?) in
      guard let value, !value.isEmpty else { return (false, nil) }
      return (true, Self.credential(in: value))
    }
    guard present else {
      throw DomainError(
        .missingCredentials,
        kind == .publicKey
          ? "Send the app's public key as 'Authorization: Api-Key <key>'."
          : "Send an admin key as 'Authorization: Bearer <key>', or sign in to the console.")
    }
    guard let key else {
      throw DomainError(.invalidCredentials, "Authorization must be 'Api-Key <key>' or 'Bearer <key>'.")
    }
    return try keys.verify(key, needs: kind)
  }

  /// The key of `Api-Key <key>` or `Bearer <key>` (scheme in any case, blanks around the key
  /// ignored), or nil.
  static func credential(in header: String) -> String? {
    var header = header
    return header.withUTF8 { credential(in: $0) }
  }

  /// `credential(in:)` of a header's bytes. Read byte by byte: it runs on every request, and
  /// splitting into an array and lower-casing the scheme was a measurable share of a cached
  /// answer's time.
  static func credential(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
    guard let schemeStart = bytes.firstIndex(where: { !isBlank($0) }),
      let schemeEnd = bytes[schemeStart...].firstIndex(where: isBlank)
    else { return nil }
    let scheme = bytes[schemeStart..<schemeEnd]
    guard Self.equalsIgnoringCase(scheme, "api-key") || Self.equalsIgnoringCase(scheme, "bearer"),
      let keyStart = bytes[schemeEnd...].firstIndex(where: { !isBlank($0) }),
      let keyLast = bytes[keyStart...].lastIndex(where: { !isBlank($0) })
    else { return nil }
    return String(decoding: UnsafeBufferPointer(rebasing: bytes[keyStart...keyLast]), as: UTF8.self)
  }

  /// ASCII comparison of `bytes` with a lower-case `word`, letters case folded.
  private static func equalsIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ word: StaticString) -> Bool {
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

/// Whether a key opens a route: it must be known, not revoked, and of the route's kind. Known
/// keys are cached in memory (bounded) and checked against the store again when their entry is
/// older than `recheckSeconds`, so a key revoked through any instance is refused by every
/// instance within that time. `last_used_at` is written at most once a minute per key, on such
/// a check, not per request.
final class KeyVerifier: Sendable {
  /// Who a request acts as.
  struct Caller: Sendable {
    let appId: Int64
    /// The key's public id (audit log, config history).
    let keyId: String
    /// What its scopes allow.
    let permissions: Set<Permission>
  }

  /// What a request's check reads of a key, made once per check of the store: the caller
  /// ready (building the scopes' set on every request was 8 % of the server's time answering
  /// default-audience flows) and no more of the record (each field copied out of the cache is
  /// reference counting on every request).
  private struct Known {
    var caller: Caller
    var kind: KeyKind
    var revoked: Bool
    var expiresAt: Date?
    var checkedAt: Date
  }

  private let apps: any AppRepository
  private let time: any TimeSource
  private let known = Mutex<[String: Known]>([:])
  static let maxCachedKeys = 10_000
  /// A revoked key stops working everywhere within this many seconds.
  static let recheckSeconds: TimeInterval = 0.5
  /// `last_used_at` is kept to this precision.
  static let usageResolution: TimeInterval = 60

  init(apps: any AppRepository, time: any TimeSource) {
    self.apps = apps
    self.time = time
  }

  /// The app and key `key` acts as, or 401 (`invalid_credentials`, `key_revoked`) / 403
  /// (`forbidden`: the wrong kind of key).
  func verify(_ key: String, needs kind: KeyKind) throws -> Caller {
    let now = time.now()
    // Known keys are looked up by their text, so the hot path does no hashing; the store
    // only ever sees (and keeps) the hash.
    let entry: Known
    if let cached = known.withLock({ $0[key] }), now.timeIntervalSince(cached.checkedAt) < Self.recheckSeconds,
      now >= cached.checkedAt
    {
      entry = cached
    } else {
      let hash = KeyHash.of(key)
      guard var stored = try apps.key(hash: hash) else {
        known.withLock { _ = $0.removeValue(forKey: key) }
        throw DomainError(.invalidCredentials, "This key is not known to this server.")
      }
      if stored.revokedAt == nil,
        stored.lastUsedAt.map({ abs(now.timeIntervalSince($0)) >= Self.usageResolution }) ?? true
      {
        // Best effort: a storage that cannot write must not turn reads away.
        if (try? apps.touchKey(hash: hash, at: now)) != nil { stored.lastUsedAt = now }
      }
      entry = Known(
        caller: Caller(appId: stored.appId, keyId: stored.id, permissions: KeyScope.permissions(stored.scopes)),
        kind: stored.kind, revoked: stored.revokedAt != nil, expiresAt: stored.expiresAt, checkedAt: now)
      known.withLock { known in
        if known.count >= Self.maxCachedKeys && known[key] == nil { known = [:] }
        known[key] = entry
      }
    }
    guard !entry.revoked else {
      throw DomainError(.keyRevoked, "This key was revoked; use another key of the app.")
    }
    if let expiresAt = entry.expiresAt, now >= expiresAt {
      throw DomainError(.keyExpired, "This key expired on \(Timestamp.string(expiresAt)); create another.")
    }
    guard entry.kind == kind else {
      throw kind == .secretKey
        ? DomainError(.forbidden, "Admin routes need the app's secret key; this is its public key.")
        : DomainError(.forbidden, "SDK routes take the app's public key; do not ship the secret key.")
    }
    return entry.caller
  }

  /// Forgets cached keys at once (a key was revoked through this instance).
  func forgetAll() { known.withLock { $0 = [:] } }
}

/// How keys are kept: only their SHA-256, in hex.
package enum KeyHash {
  package static func of(_ key: String) -> String { Digest.sha256Hex(key) }
}
