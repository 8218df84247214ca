import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Signing in to the console and the sessions it opens: passwords checked against their
/// Argon2id hash, failures throttled per account and per address, sessions kept server-side
/// (the cookie holds a random 256-bit id, the table its hash) with idle and absolute expiry.
final class ConsoleSessions: Sendable {
  /// The cookie that carries the session id.
  static let cookieName = "tollgate_session"

  /// A session just opened: the cookie's value is only here.
  struct Opened: Sendable {
    /// The cookie's value.
    let id: String
    /// What is stored.
    let session: SessionRecord
    /// Whose it is.
    let person: PersonRecord
  }

  /// The session a request carries, and its person.
  struct Current: Sendable {
    let session: SessionRecord
    let person: PersonRecord
  }

  let people: any PeopleRepository
  let hasher: PasswordHasher
  let throttle: SignInThrottle
  let policy: SessionPolicy
  let twoFactor: TwoFactorService
  let time: any TimeSource
  /// A hash of a random password at the same cost, verified when the e-mail is unknown, so an
  /// unknown e-mail takes as long to refuse as a wrong password.
  let decoy: String

  init(
    people: any PeopleRepository, hasher: PasswordHasher, throttle: SignInThrottle, policy: SessionPolicy,
    twoFactor: TwoFactorService, time: any TimeSource
  ) {
    self.people = people
    self.hasher = hasher
    self.throttle = throttle
    self.policy = policy
    self.twoFactor = twoFactor
    self.time = time
    decoy = (try? hasher.hash(Digest.hex(Digest.randomBytes(16)))) ?? ""
  }

  /// The person's session, or 401 `invalid_credentials` (unknown e-mail, wrong password and
  /// disabled person alike; a wrong or replayed second-factor code) / 401
  /// `two_factor_code_required` (the password was right, the code is missing) / 429
  /// `rate_limited` while failures are throttled. Until the whole sign-in succeeds, the try
  /// stays counted as a failure.
  func signIn(email rawEmail: String, password: String, code: String? = nil, address: String) throws -> Opened {
    let email = PeopleService.normalized(email: rawEmail)
    let now = time.now()
    let accountKey = "account:" + email
    let addressKey = "address:" + address
    // Each try is counted as a failure before the password is checked, in a transaction that
    // locks the count: simultaneous tries see each other. A success takes it back.
    try charge(accountKey, now: now, locks: true)
    try charge(addressKey, now: now, locks: false)
    let person = try people.person(email: email)
    // Always one Argon2id verification, whoever asks.
    let matches = hasher.verify(password, against: person?.passwordHash ?? decoy)
    guard let person, matches, person.passwordHash != nil, person.disabledAt == nil else {
      throw DomainError(.invalidCredentials, "The e-mail address or the password is wrong.")
    }
    if person.twoFactorSince != nil {
      guard let code, !code.trimmingCharacters(in: .whitespaces).isEmpty else {
        throw DomainError(
          .twoFactorCodeRequired, "Enter the 6-digit code from your authenticator app, or a recovery code.")
      }
      guard try twoFactor.check(person, code: code) else {
        throw DomainError(.invalidCredentials, "The code is wrong, or was used already.")
      }
    }
    try people.updateSignInFailures(key: accountKey) { _ in nil }
    try people.updateSignInFailures(key: addressKey) { record in
      record.failures <= 1
        ? nil
        : SignInThrottle.Record(
          failures: record.failures - 1, lastFailure: record.lastFailure, lockedUntil: record.lockedUntil)
    }
    if let stored = person.passwordHash, hasher.needsRehash(stored) {
      try people.setPassword(personId: person.id, hash: try hasher.hash(password))
    }
    return try open(person: person, address: address)
  }

  /// Counts one try under `key`, or 429 when the key's tries are throttled (then nothing is
  /// counted).
  private func charge(_ key: String, now: Date, locks: Bool) throws {
    var due: Date?
    try people.updateSignInFailures(key: key) { record in
      due = throttle.nextTry(record, now: now)
      return due == nil ? throttle.failed(record, now: now, locks: locks) : record
    }
    if let due {
      let seconds = max(1, Int(due.timeIntervalSince(now).rounded(.up)))
      throw DomainError(.rateLimited, "Too many failed sign-ins; try again in \(seconds) s.", retryAfter: seconds)
    }
  }

  /// A new session for `person` (always a new id: a session id is never carried over from
  /// before the sign-in); `method` says how they signed in (`password` or `sso`).
  func open(person: PersonRecord, address: String, method: String = "password") throws -> Opened {
    let now = time.now()
    let id = Self.token()
    let session = SessionRecord(
      idHash: Digest.sha256Hex(id), personId: person.id, csrfToken: Self.token(), createdAt: now, lastSeenAt: now,
      address: address, endedAt: nil, method: method)
    try people.addSession(session)
    return Opened(id: id, session: session, person: person)
  }

  /// The open session whose id the cookie holds, or 401 `session_expired`.
  func current(cookie: String?) throws -> Current {
    guard let cookie, !cookie.isEmpty, cookie.utf8.count <= 128 else {
      throw DomainError(.sessionExpired, "Sign in to the console.")
    }
    let now = time.now()
    let hash = Digest.sha256Hex(cookie)
    guard let session = try people.session(idHash: hash), session.endedAt == nil,
      policy.isOpen(created: session.createdAt, lastSeen: session.lastSeenAt, now: now),
      let person = try people.person(id: session.personId), person.disabledAt == nil
    else { throw DomainError(.sessionExpired, "This session ended: sign in again.") }
    if now.timeIntervalSince(session.lastSeenAt) >= policy.touchResolution {
      try people.touchSession(idHash: hash, at: now)
    }
    return Current(session: session, person: person)
  }

  /// Ends this session.
  func signOut(_ current: Current) throws {
    try people.endSession(idHash: current.session.idHash, at: time.now())
  }

  /// Ends every session of the person, this one included.
  func signOutEverywhere(_ current: Current) throws {
    try people.endSessions(personId: current.person.id, at: time.now())
  }

  /// Changes the person's password after checking the current one; every other session ends.
  func changePassword(_ current: Current, from old: String, to new: String, policy passwords: PasswordPolicy)
    throws -> Opened
  {
    guard let stored = current.person.passwordHash, hasher.verify(old, against: stored) else {
      throw DomainError.validation([.init(path: "$.current_password", message: "is not your password")])
    }
    if let problem = passwords.problem(with: new, email: current.person.email) {
      throw DomainError(.weakPassword, problem, details: [.init(path: "$.new_password", message: problem)])
    }
    try people.setPassword(personId: current.person.id, hash: try hasher.hash(new))
    try people.endSessions(personId: current.person.id, at: time.now())
    return try open(person: current.person, address: current.session.address)
  }

  /// A `Set-Cookie` value: always `HttpOnly`, `Secure` when served over HTTPS (the session cookie
  /// and single sign-on's state cookie).
  static func cookie(
    _ name: String, _ value: String, maxAge: Int, path: String, _ secure: Bool, sameSite: String = "Lax"
  ) -> String {
    "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=\(sameSite)" + (secure ? "; Secure" : "")
  }

  /// 256 random bits, base64url without padding.
  static func token() -> String { Base64URL.encode(Data(Digest.randomBytes(32))) }
}
