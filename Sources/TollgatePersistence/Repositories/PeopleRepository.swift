import Foundation
import TollgateDomain

/// People, their roles per app, invitations, console sessions and failed sign-ins.
public protocol PeopleRepository: Sendable {
  /// The person with this (lower-case) e-mail.
  func person(email: String) throws -> PersonRecord?

  /// The person with this id.
  func person(id: Int64) throws -> PersonRecord?

  /// Replaces a person's password hash.
  func setPassword(personId: Int64, hash: String) throws

  /// Disables (a date) or enables (nil) a person; disabling ends their sessions at `at`.
  func setDisabled(personId: Int64, at: Date?) throws

  /// A person's roles, by app name.
  func memberships(personId: Int64) throws -> [MembershipRecord]

  /// The people of an app with their roles.
  func members(appId: Int64) throws -> [(person: PersonRecord, role: Role)]

  /// Gives a person a role in an app, or takes the app away (nil).
  func setRole(personId: Int64, appId: Int64, role: Role?) throws

  /// Stores an invitation.
  func addInvitation(_ invitation: InvitationRecord) throws

  /// The invitation with this token hash.
  func invitation(tokenHash: String) throws -> InvitationRecord?

  /// The app's invitations not yet accepted, newest first.
  func pendingInvitations(appId: Int64) throws -> [InvitationRecord]

  /// Accepts an invitation in one transaction: marks it used (nil when it already was), creates
  /// the person when `newPasswordHash` is given and they do not exist (for a reset link: replaces
  /// their password and ends their sessions), and gives them the role.
  func acceptInvitation(tokenHash: String, at: Date, name: String?, newPasswordHash: String?) throws -> PersonRecord?

  /// Stores a new session.
  func addSession(_ session: SessionRecord) throws

  /// The session with this id hash (ended ones too: the caller refuses them).
  func session(idHash: String) throws -> SessionRecord?

  /// Notes a request in a session.
  func touchSession(idHash: String, at: Date) throws

  /// Ends one session.
  func endSession(idHash: String, at: Date) throws

  /// Ends every open session of a person.
  func endSessions(personId: Int64, at: Date) throws

  /// A person's second factor as stored.
  func twoFactor(personId: Int64) throws -> TwoFactorRecord

  /// Stores a sealed secret being set up (replacing any earlier one not confirmed).
  func setPendingTwoFactor(personId: Int64, sealed: String) throws

  /// Turns the pending secret on at `at` when it is still `pending` (the sealed secret the code
  /// was checked against), with its first accepted step and the recovery codes' hashes
  /// (replacing older codes); false when another secret, or none, is pending now.
  func enableTwoFactor(personId: Int64, pending: String, at: Date, step: Int64, recoveryHashes: [String]) throws
    -> Bool

  /// Turns the second factor off and forgets its secret and recovery codes.
  func disableTwoFactor(personId: Int64) throws

  /// Takes `step` as used when it is later than the last one used; false when it is not (a replay).
  func useTwoFactorStep(personId: Int64, step: Int64) throws -> Bool

  /// Takes a recovery code as used; false when it is unknown or used already.
  func useRecoveryCode(personId: Int64, hash: String, at: Date) throws -> Bool

  /// Recovery codes not used yet.
  func unusedRecoveryCodes(personId: Int64) throws -> Int

  /// Whether the app's owners require a second factor of everyone.
  func requiresTwoFactor(appId: Int64) throws -> Bool

  /// Sets the app's "require two-factor sign-in of everyone".
  func setRequiresTwoFactor(appId: Int64, _ required: Bool) throws

  /// Deletes what no longer matters: sessions signed in before `sessionsCreatedBefore` (past their
  /// absolute expiry) or ended before `sessionsEndedBefore`, failure counts not locked and last
  /// counted before `failuresBefore`, and invitations that expired before `invitationsBefore`.
  /// Returns how many rows went.
  @discardableResult
  func forgetStale(
    sessionsCreatedBefore: Date, sessionsEndedBefore: Date, failuresBefore: Date, invitationsBefore: Date, now: Date
  ) throws -> Int

  /// Failed sign-ins under a key (`account:EMAIL` or `address:ADDR`).
  func signInFailures(key: String) throws -> SignInThrottle.Record

  /// Changes the failures under a key in one transaction, the row locked, so simultaneous
  /// sign-ins each see the other's count; `change` returning nil clears them. Returns what was
  /// stored.
  @discardableResult
  func updateSignInFailures(
    key: String, _ change: (SignInThrottle.Record) throws -> SignInThrottle.Record?
  ) throws -> SignInThrottle.Record?
}
