import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// The people of an app: invitations (a one-time link, valid `SessionPolicy.invitation`),
/// accepting them with a new password or, for someone who already has one, their current
/// password; roles; disabling a person (their sessions end at once); lifting a sign-in lock.
/// Every change is in the audit log.
public final class PeopleService: Sendable {
  /// The longest e-mail address (RFC 5321's path limit).
  static let maxEmailLength = 254
  /// The longest name.
  static let maxNameLength = 200

  /// An invitation as its link's page shows it.
  struct InvitationView: Sendable {
    let invitation: InvitationRecord
    let appName: String
    /// The e-mail already belongs to someone: they accept with their current password.
    let existingPerson: Bool
  }

  /// A member of an app.
  public struct Member: Sendable {
    /// Who.
    public let person: PersonRecord
    /// Their role in the app.
    public let role: Role
    /// Sign-ins refused until then (an owner may lift it).
    public let lockedUntil: Date?
  }

  let people: any PeopleRepository
  let apps: any AppRepository
  let hasher: PasswordHasher
  let passwords: PasswordPolicy
  let policy: SessionPolicy
  let time: any TimeSource

  init(
    people: any PeopleRepository, apps: any AppRepository, hasher: PasswordHasher, passwords: PasswordPolicy,
    policy: SessionPolicy, time: any TimeSource
  ) {
    self.people = people
    self.apps = apps
    self.hasher = hasher
    self.passwords = passwords
    self.policy = policy
    self.time = time
  }

  /// An e-mail address as stored: trimmed, lower case.
  public static func normalized(email: String) -> String {
    email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
  }

  /// A new invitation of `email` to the app with `role`; the token is only in the answer.
  public func invite(appId: Int64, email rawEmail: String, role roleName: String, by actor: String) throws -> (
    token: String, invitation: InvitationRecord
  ) {
    let email = Self.normalized(email: rawEmail)
    var problems: [APIError.Detail] = []
    let parts = email.split(separator: "@", omittingEmptySubsequences: false)
    if email.count > Self.maxEmailLength || parts.count != 2 || parts[0].isEmpty || !parts[1].contains(".")
      || email.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "<" || $0 == ">" })
    {
      problems.append(.init(path: "$.email", message: "an e-mail address such as ana@example.com"))
    }
    let role = Role(rawValue: roleName)
    if role == nil {
      problems.append(
        .init(path: "$.role", message: "one of " + Role.allCases.map(\.rawValue).joined(separator: ", ")))
    }
    guard problems.isEmpty, let role else { throw DomainError.validation(problems) }
    let now = time.now()
    let token = ConsoleSessions.token()
    let invitation = InvitationRecord(
      tokenHash: Digest.sha256Hex(token), email: email, appId: appId, role: role, createdAt: now,
      expiresAt: now.addingTimeInterval(policy.invitation), acceptedAt: nil, invitedBy: actor)
    try people.addInvitation(invitation)
    try audit(appId: appId, actor: actor, "person.invited", ["email": email, "role": role.rawValue])
    return (token, invitation)
  }

  /// The invitation behind a link: 404 `invitation_not_found`, 409 `invitation_used`, 410
  /// `invitation_expired`.
  func invitation(token: String) throws -> InvitationView {
    guard token.utf8.count <= 128, let invitation = try people.invitation(tokenHash: Digest.sha256Hex(token)) else {
      throw DomainError.notFound(.invitationNotFound, "This invitation link is not known: ask for a new one.")
    }
    guard invitation.acceptedAt == nil else {
      throw DomainError(.invitationUsed, "This invitation was used already: sign in instead.")
    }
    guard invitation.expiresAt > time.now() else {
      throw DomainError(.invitationExpired, "This invitation expired: ask an owner of the app for a new one.")
    }
    guard let app = try apps.app(id: invitation.appId) else {
      throw DomainError.notFound(.invitationNotFound, "The app of this invitation is gone.")
    }
    return InvitationView(
      invitation: invitation, appName: app.name, existingPerson: try people.person(email: invitation.email) != nil)
  }

  /// Accepts the invitation: someone new chooses a password (checked by the policy), someone
  /// who has one gives it. Returns the person, who then gets a session.
  func accept(token: String, password: String, name rawName: String?) throws -> PersonRecord {
    let view = try invitation(token: token)
    let name = rawName?.trimmingCharacters(in: .whitespacesAndNewlines)
    if let name, name.count > Self.maxNameLength {
      throw DomainError.validation([.init(path: "$.name", message: "at most \(Self.maxNameLength) characters")])
    }
    var newHash: String?
    if view.invitation.resetsPassword {
      if let problem = passwords.problem(with: password, email: view.invitation.email) {
        throw DomainError(.weakPassword, problem, details: [.init(path: "$.password", message: problem)])
      }
      newHash = try hasher.hash(password)
    } else if let existing = try people.person(email: view.invitation.email) {
      guard let stored = existing.passwordHash, hasher.verify(password, against: stored), existing.disabledAt == nil
      else {
        throw DomainError(.invalidCredentials, "This is not the password of \(view.invitation.email).")
      }
    } else {
      if let problem = passwords.problem(with: password, email: view.invitation.email) {
        throw DomainError(.weakPassword, problem, details: [.init(path: "$.password", message: problem)])
      }
      newHash = try hasher.hash(password)
    }
    guard
      let person = try people.acceptInvitation(
        tokenHash: view.invitation.tokenHash, at: time.now(), name: name?.isEmpty == true ? nil : name,
        newPasswordHash: newHash)
    else { throw DomainError(.invitationUsed, "This invitation was used already: sign in instead.") }
    try audit(
      appId: view.invitation.appId, actor: person.email,
      view.invitation.resetsPassword ? "person.password_reset" : "person.joined",
      ["email": person.email, "role": view.invitation.role.rawValue])
    return person
  }

  /// The app's people and its open invitations.
  public func members(appId: Int64) throws -> (members: [Member], invitations: [InvitationRecord]) {
    let now = time.now()
    let members = try people.members(appId: appId).map { person, role in
      Member(person: person, role: role, lockedUntil: try lockedUntil(person, now: now))
    }
    let open = try people.pendingInvitations(appId: appId).filter { $0.expiresAt > now }
    return (members, open)
  }

  /// Whether the app requires a second factor of everyone.
  func requiresTwoFactor(appId: Int64) throws -> Bool { try people.requiresTwoFactor(appId: appId) }

  /// Requires (or stops requiring) a second factor of everyone in the app: people without one
  /// are refused the app's routes (403 `two_factor_required`) until they set it up.
  func setRequiresTwoFactor(appId: Int64, _ required: Bool, by actor: String) throws {
    try people.setRequiresTwoFactor(appId: appId, required)
    try audit(appId: appId, actor: actor, "app.two_factor_policy", ["require_two_factor": required ? "yes" : "no"])
  }

  /// Changes a member's role (404 `person_not_found`; an app keeps at least one owner).
  func setRole(appId: Int64, personId: Int64, role roleName: String, by actor: String) throws -> Member {
    guard let role = Role(rawValue: roleName) else {
      throw DomainError.validation([
        .init(path: "$.role", message: "one of " + Role.allCases.map(\.rawValue).joined(separator: ", "))
      ])
    }
    let member = try self.member(appId: appId, personId: personId)
    if member.role == .owner, role != .owner { try keepAnOwner(appId: appId) }
    try people.setRole(personId: personId, appId: appId, role: role)
    try audit(appId: appId, actor: actor, "person.role_changed", ["email": member.person.email, "role": role.rawValue])
    return Member(person: member.person, role: role, lockedUntil: member.lockedUntil)
  }

  /// Takes the app away from a member; their access to it ends with their next request.
  func remove(appId: Int64, personId: Int64, by actor: String) throws {
    let member = try self.member(appId: appId, personId: personId)
    if member.role == .owner { try keepAnOwner(appId: appId) }
    try people.setRole(personId: personId, appId: appId, role: nil)
    try audit(appId: appId, actor: actor, "person.removed", ["email": member.person.email])
  }

  /// Disables or enables a person: a disabled person cannot sign in and their sessions end at
  /// once. Only an owner of every app the person belongs to may do it (403 otherwise).
  func setDisabled(appId: Int64, personId: Int64, disabled: Bool, by actor: String, actorPersonId: Int64?)
    throws -> Member
  {
    let member = try self.member(appId: appId, personId: personId)
    if actorPersonId == personId { throw DomainError(.forbidden, "You cannot disable yourself; ask another owner.") }
    try requireOwnerOfAll(personId: personId, actorPersonId: actorPersonId)
    if disabled, member.role == .owner { try keepAnOwner(appId: appId) }
    let at = disabled ? time.now() : nil
    try people.setDisabled(personId: personId, at: at)
    try audit(
      appId: appId, actor: actor, disabled ? "person.disabled" : "person.enabled", ["email": member.person.email])
    // Answered from the change, not read again: another owner's removal landing in between
    // would answer 404 for a change that was made and audited.
    var person = member.person
    person.disabledAt = at
    return Member(person: person, role: member.role, lockedUntil: member.lockedUntil)
  }

  /// A one-time link with which the member chooses a new password (they forgot theirs); their
  /// sessions end when it is used. Only an owner of every app the person belongs to may make one
  /// (403 otherwise), so an owner of one app cannot take over someone's access to another.
  func resetPassword(appId: Int64, personId: Int64, by actor: String, actorPersonId: Int64?) throws -> (
    token: String, invitation: InvitationRecord
  ) {
    let member = try self.member(appId: appId, personId: personId)
    try requireOwnerOfAll(personId: personId, actorPersonId: actorPersonId)
    let now = time.now()
    let token = ConsoleSessions.token()
    let invitation = InvitationRecord(
      tokenHash: Digest.sha256Hex(token), email: member.person.email, appId: appId, role: member.role, createdAt: now,
      expiresAt: now.addingTimeInterval(policy.invitation), acceptedAt: nil, invitedBy: actor, resetsPassword: true)
    try people.addInvitation(invitation)
    try audit(appId: appId, actor: actor, "person.password_reset_link", ["email": member.person.email])
    return (token, invitation)
  }

  /// Turns a member's second factor off (a lost phone without recovery codes); same rule as a
  /// password reset.
  func resetTwoFactor(appId: Int64, personId: Int64, by actor: String, actorPersonId: Int64?) throws -> Member {
    let member = try self.member(appId: appId, personId: personId)
    try requireOwnerOfAll(personId: personId, actorPersonId: actorPersonId)
    try people.disableTwoFactor(personId: personId)
    try audit(appId: appId, actor: actor, "person.two_factor_reset", ["email": member.person.email])
    // Answered from the change, as `setDisabled` is.
    var person = member.person
    person.twoFactorSince = nil
    return Member(person: person, role: member.role, lockedUntil: member.lockedUntil)
  }

  /// The operator's second-factor reset (command line); false when nobody has that e-mail.
  public func resetTwoFactor(email rawEmail: String, by actor: String) throws -> Bool {
    guard let person = try people.person(email: Self.normalized(email: rawEmail)) else { return false }
    try people.disableTwoFactor(personId: person.id)
    for membership in try people.memberships(personId: person.id) {
      try audit(appId: membership.appId, actor: actor, "person.two_factor_reset", ["email": person.email])
    }
    return true
  }

  /// The operator's password-reset link (command line) for the person's role in `appId`; nil
  /// when they are not a member.
  public func resetPassword(appId: Int64, email rawEmail: String, by actor: String) throws -> String? {
    guard let person = try people.person(email: Self.normalized(email: rawEmail)),
      try people.memberships(personId: person.id).contains(where: { $0.appId == appId })
    else { return nil }
    return try resetPassword(appId: appId, personId: person.id, by: actor, actorPersonId: nil).token
  }

  /// Refuses an owner acting on someone who belongs to apps they do not own (a key or the
  /// command line acts for the operator and passes).
  private func requireOwnerOfAll(personId: Int64, actorPersonId: Int64?) throws {
    guard let actorPersonId else { return }
    let ownerOf = Set(try people.memberships(personId: actorPersonId).filter { $0.role == .owner }.map(\.appId))
    let theirs = try people.memberships(personId: personId).map(\.appId)
    guard theirs.allSatisfy(ownerOf.contains) else {
      throw DomainError(.forbidden, "This person belongs to apps you do not own: an owner of each must do this.")
    }
  }

  /// Lifts a sign-in lock at once.
  func unlock(appId: Int64, personId: Int64, by actor: String) throws -> Member {
    let member = try self.member(appId: appId, personId: personId)
    try people.updateSignInFailures(key: "account:" + member.person.email) { _ in nil }
    try audit(appId: appId, actor: actor, "person.unlocked", ["email": member.person.email])
    return Member(person: member.person, role: member.role, lockedUntil: nil)
  }

  /// The operator's switch (command line): disables or enables the person with `email` in
  /// every app, whoever owns them; nil when nobody has that e-mail.
  public func setDisabled(email rawEmail: String, disabled: Bool, by actor: String) throws -> PersonRecord? {
    guard let person = try people.person(email: Self.normalized(email: rawEmail)) else { return nil }
    try people.setDisabled(personId: person.id, at: disabled ? time.now() : nil)
    for membership in try people.memberships(personId: person.id) {
      try audit(
        appId: membership.appId, actor: actor, disabled ? "person.disabled" : "person.enabled", ["email": person.email])
    }
    return try people.person(id: person.id)
  }

  /// The operator's unlock (command line); false when nobody has that e-mail.
  public func unlock(email rawEmail: String, by actor: String) throws -> Bool {
    guard let person = try people.person(email: Self.normalized(email: rawEmail)) else { return false }
    try people.updateSignInFailures(key: "account:" + person.email) { _ in nil }
    for membership in try people.memberships(personId: person.id) {
      try audit(appId: membership.appId, actor: actor, "person.unlocked", ["email": person.email])
    }
    return true
  }

  /// Whether the app has an owner who has joined (`make run` prints an invitation until then).
  public func hasOwner(appId: Int64) throws -> Bool {
    try people.members(appId: appId).contains { $0.role == .owner && $0.person.disabledAt == nil }
  }

  /// The console's link for an invitation token at `base` (the token after `#`, so it is never
  /// sent in a request line or a `Referer`).
  public static func link(base: String, token: String) -> String {
    (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/dashboard/#invitation=" + token
  }

  /// One member, read alone: the person, their role in the app, their sign-in lock.
  private func member(appId: Int64, personId: Int64) throws -> Member {
    guard let person = try people.person(id: personId),
      let role = try people.memberships(personId: personId).first(where: { $0.appId == appId })?.role
    else {
      throw DomainError.notFound(.personNotFound, "No person \(personId) in this app.")
    }
    return Member(person: person, role: role, lockedUntil: try lockedUntil(person, now: time.now()))
  }

  /// Until when repeated failed sign-ins lock the person out; nil when they are not locked now.
  private func lockedUntil(_ person: PersonRecord, now: Date) throws -> Date? {
    try people.signInFailures(key: "account:" + person.email).lockedUntil.flatMap { $0 > now ? $0 : nil }
  }

  /// Refuses a change that would leave the app without an enabled owner.
  private func keepAnOwner(appId: Int64) throws {
    let owners = try people.members(appId: appId).filter { $0.role == .owner && $0.person.disabledAt == nil }
    guard owners.count > 1 else {
      throw DomainError.validation([.init(path: "$.role", message: "an app keeps at least one owner")])
    }
  }

  private func audit(appId: Int64, actor: String, _ action: String, _ detail: [String: String]) throws {
    let text = String(
      decoding: try JSONSerialization.data(withJSONObject: detail, options: [.sortedKeys]), as: UTF8.self)
    try apps.audit(appId: appId, AuditRecord(at: time.now(), actor: actor, action: action, detail: text))
  }
}
