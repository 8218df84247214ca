import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// A person's second factor: set-up (a new secret shown once as a QR code and text, confirmed
/// with a code before it counts), the check at sign-in (a TOTP code of the window, never replayed,
/// or an unused recovery code), and turning it off with the password. Secrets are sealed with the
/// secrets key, like webhook secrets.
final class TwoFactorService: Sendable {
  /// What authenticator apps list the account under.
  static let issuer = "Tollgate"

  /// A set-up in progress: what the person's app scans or types.
  struct Setup: Sendable {
    /// The secret in base32.
    let secret: String
    /// `otpauth://totp/…`, the QR code's text.
    let uri: String
  }

  let people: any PeopleRepository
  let hasher: PasswordHasher
  let secrets: SecretBox?
  let time: any TimeSource

  init(people: any PeopleRepository, hasher: PasswordHasher, secrets: SecretBox?, time: any TimeSource) {
    self.people = people
    self.hasher = hasher
    self.secrets = secrets
    self.time = time
  }

  private func box() throws -> SecretBox {
    guard let secrets else {
      throw DomainError(
        .secretsKeyMissing, "Two-factor sign-in needs the server's secrets key (--secrets-key) to seal its secrets.")
    }
    return secrets
  }

  /// A new secret for `person` to confirm (replacing one not confirmed yet).
  func begin(_ person: PersonRecord) throws -> Setup {
    let secret = TOTP.newSecret()
    try people.setPendingTwoFactor(personId: person.id, sealed: try box().seal(TOTP.base32(secret)))
    return Setup(
      secret: TOTP.base32(secret), uri: TwoFactor.uri(secret: secret, account: person.email, issuer: Self.issuer))
  }

  /// Turns the pending secret on when `code` is its current code; returns the recovery codes,
  /// shown this once.
  func confirm(_ person: PersonRecord, code: String) throws -> [String] {
    guard let sealed = try people.twoFactor(personId: person.id).pending,
      let secret = TOTP.bytes(base32: try box().open(sealed))
    else { throw DomainError.validation([.init(path: "$.code", message: "start the set-up first")]) }
    guard let step = TwoFactor.acceptedStep(code: code, secret: secret, now: time.now(), lastStep: nil) else {
      throw DomainError.validation([
        .init(path: "$.code", message: "is not the code your authenticator shows now (check the phone's clock)")
      ])
    }
    let codes = TwoFactor.newRecoveryCodes()
    // Only the secret the code was checked against is turned on: a set-up begun meanwhile (in
    // another tab) replaced it with one nobody has confirmed.
    guard
      try people.enableTwoFactor(
        personId: person.id, pending: sealed, at: time.now(), step: step,
        recoveryHashes: codes.map(TwoFactor.recoveryHash))
    else {
      throw DomainError.validation([
        .init(path: "$.code", message: "is for a set-up no longer pending (replaced or confirmed already)")
      ])
    }
    return codes
  }

  /// Whether `code` is the person's second factor now: a TOTP code of the window not used
  /// before, or an unused recovery code (then used up).
  func check(_ person: PersonRecord, code: String) throws -> Bool {
    if TwoFactor.isRecoveryCode(code) {
      return try people.useRecoveryCode(personId: person.id, hash: TwoFactor.recoveryHash(code), at: time.now())
    }
    let stored = try people.twoFactor(personId: person.id)
    guard let sealed = stored.secret, let secret = TOTP.bytes(base32: try box().open(sealed)),
      let step = TwoFactor.acceptedStep(code: code, secret: secret, now: time.now(), lastStep: stored.lastStep)
    else { return false }
    // Two sign-ins with one code at once: only one takes the step.
    return try people.useTwoFactorStep(personId: person.id, step: step)
  }

  /// Turns the second factor off after checking the password.
  func disable(_ person: PersonRecord, password: String) throws {
    guard let stored = person.passwordHash, hasher.verify(password, against: stored) else {
      throw DomainError.validation([.init(path: "$.password", message: "is not your password")])
    }
    try people.disableTwoFactor(personId: person.id)
  }

  /// Recovery codes not used yet.
  func unusedRecoveryCodes(_ person: PersonRecord) throws -> Int { try people.unusedRecoveryCodes(personId: person.id) }
}
