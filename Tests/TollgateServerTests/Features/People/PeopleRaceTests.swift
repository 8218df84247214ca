import Foundation
import Synchronization
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// People's routes with another request landing in the middle: each answer says what the
/// request itself did, and a second factor is only turned on for the secret its code proved.
@Suite("People, two requests at once")
struct PeopleRaceTests {
  let store: any Database
  let appId: Int64
  let ana: PersonRecord
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  init() throws {
    store = try StoreFactory.sqlite.make()
    appId = try store.createApp(name: "alpha").id
    try store.addInvitation(
      InvitationRecord(
        tokenHash: "invitation", email: "ana@example.com", appId: appId, role: .editor, createdAt: now,
        expiresAt: now.addingTimeInterval(3_600), acceptedAt: nil, invitedBy: "test"))
    ana = try #require(try store.acceptInvitation(tokenHash: "invitation", at: now, name: nil, newPasswordHash: "x"))
  }

  /// The service over `people`; the operator acts (no person), as a secret key does.
  func service(_ people: any PeopleRepository) -> PeopleService {
    PeopleService(
      people: people, apps: store, hasher: .fastForTests, passwords: CommonPasswords.policy, policy: SessionPolicy(),
      time: ManualTime(now))
  }

  @Test("disabling answers the person disabled, though another owner removes them from the app at once (not 404)")
  func disableThenRemoved() throws {
    let store = self.store
    defer { store.close() }
    let appId = self.appId
    let people = InterleavedPeople(store) { call, personId in
      if call == "setDisabled" { try store.setRole(personId: personId, appId: appId, role: nil) }
    }
    let member = try service(people).setDisabled(
      appId: appId, personId: ana.id, disabled: true, by: "test", actorPersonId: nil)
    #expect(member.person.disabledAt == now && member.role == .editor)
    #expect(try store.person(id: ana.id)?.disabledAt == now)
  }

  @Test("resetting a second factor answers the person without one, though they are removed at once (not 404)")
  func resetThenRemoved() throws {
    let store = self.store
    defer { store.close() }
    let appId = self.appId
    try store.setPendingTwoFactor(personId: ana.id, sealed: "sealed")
    let people = InterleavedPeople(store) { call, personId in
      if call == "disableTwoFactor" { try store.setRole(personId: personId, appId: appId, role: nil) }
    }
    let member = try service(people).resetTwoFactor(appId: appId, personId: ana.id, by: "test", actorPersonId: nil)
    #expect(member.person.twoFactorSince == nil && member.role == .editor)
  }

  @Test("a code confirms only the secret it was checked against, not one a set-up in another tab put in its place")
  func confirmAfterNewSetup() throws {
    let store = self.store
    defer { store.close() }
    let box = try SecretBox(key: Array(repeating: 7, count: 32))
    let time = ManualTime(now)
    let first = try TwoFactorService(people: store, hasher: .fastForTests, secrets: box, time: time).begin(ana)
    // The other tab's set-up lands after the code was checked, before the secret is turned on.
    let replaced = Mutex<String?>(nil)
    let people = InterleavedPeople(store) { call, personId in
      guard call == "twoFactor", replaced.withLock({ $0 }) == nil else { return }
      let sealed = try box.seal(TOTP.base32(TOTP.newSecret()))
      try store.setPendingTwoFactor(personId: personId, sealed: sealed)
      replaced.withLock { $0 = sealed }
    }
    let secret = try #require(TOTP.bytes(base32: first.secret))
    let code = TOTP.code(secret: secret, step: TOTP.step(at: now))
    let service = TwoFactorService(people: people, hasher: .fastForTests, secrets: box, time: time)
    #expect(throws: DomainError.self) { try service.confirm(ana, code: code) }
    let stored = try store.twoFactor(personId: ana.id)
    #expect(stored.secret == nil, "a secret nobody confirmed was turned on")
    #expect(stored.pending == replaced.withLock { $0 })
  }
}

/// A people repository over `store` that runs `after` once each call returns, with the call's
/// name and the person: the other request, landing at that very moment.
private struct InterleavedPeople: PeopleRepository {
  let store: any PeopleRepository
  let after: @Sendable (String, Int64) throws -> Void

  init(_ store: any PeopleRepository, after: @escaping @Sendable (String, Int64) throws -> Void) {
    self.store = store
    self.after = after
  }

  func person(email: String) throws -> PersonRecord? { try store.person(email: email) }
  func person(id: Int64) throws -> PersonRecord? { try store.person(id: id) }
  func setPassword(personId: Int64, hash: String) throws { try store.setPassword(personId: personId, hash: hash) }
  func setDisabled(personId: Int64, at: Date?) throws {
    try store.setDisabled(personId: personId, at: at)
    try after("setDisabled", personId)
  }
  func memberships(personId: Int64) throws -> [MembershipRecord] { try store.memberships(personId: personId) }
  func members(appId: Int64) throws -> [(person: PersonRecord, role: Role)] { try store.members(appId: appId) }
  func setRole(personId: Int64, appId: Int64, role: Role?) throws {
    try store.setRole(personId: personId, appId: appId, role: role)
  }
  func addInvitation(_ invitation: InvitationRecord) throws { try store.addInvitation(invitation) }
  func invitation(tokenHash: String) throws -> InvitationRecord? { try store.invitation(tokenHash: tokenHash) }
  func pendingInvitations(appId: Int64) throws -> [InvitationRecord] { try store.pendingInvitations(appId: appId) }
  func acceptInvitation(tokenHash: String, at: Date, name: String?, newPasswordHash: String?) throws -> PersonRecord? {
    try store.acceptInvitation(tokenHash: tokenHash, at: at, name: name, newPasswordHash: newPasswordHash)
  }
  func addSession(_ session: SessionRecord) throws { try store.addSession(session) }
  func session(idHash: String) throws -> SessionRecord? { try store.session(idHash: idHash) }
  func touchSession(idHash: String, at: Date) throws { try store.touchSession(idHash: idHash, at: at) }
  func endSession(idHash: String, at: Date) throws { try store.endSession(idHash: idHash, at: at) }
  func endSessions(personId: Int64, at: Date) throws { try store.endSessions(personId: personId, at: at) }
  func twoFactor(personId: Int64) throws -> TwoFactorRecord {
    let record = try store.twoFactor(personId: personId)
    try after("twoFactor", personId)
    return record
  }
  func setPendingTwoFactor(personId: Int64, sealed: String) throws {
    try store.setPendingTwoFactor(personId: personId, sealed: sealed)
  }
  func enableTwoFactor(personId: Int64, pending: String, at: Date, step: Int64, recoveryHashes: [String]) throws
    -> Bool
  {
    try store.enableTwoFactor(personId: personId, pending: pending, at: at, step: step, recoveryHashes: recoveryHashes)
  }
  func disableTwoFactor(personId: Int64) throws {
    try store.disableTwoFactor(personId: personId)
    try after("disableTwoFactor", personId)
  }
  func useTwoFactorStep(personId: Int64, step: Int64) throws -> Bool {
    try store.useTwoFactorStep(personId: personId, step: step)
  }
  func useRecoveryCode(personId: Int64, hash: String, at: Date) throws -> Bool {
    try store.useRecoveryCode(personId: personId, hash: hash, at: at)
  }
  func unusedRecoveryCodes(personId: Int64) throws -> Int { try store.unusedRecoveryCodes(personId: personId) }
  func requiresTwoFactor(appId: Int64) throws -> Bool { try store.requiresTwoFactor(appId: appId) }
  func setRequiresTwoFactor(appId: Int64, _ required: Bool) throws {
    try store.setRequiresTwoFactor(appId: appId, required)
  }
  func forgetStale(
    sessionsCreatedBefore: Date, sessionsEndedBefore: Date, failuresBefore: Date, invitationsBefore: Date, now: Date
  ) throws -> Int {
    try store.forgetStale(
      sessionsCreatedBefore: sessionsCreatedBefore, sessionsEndedBefore: sessionsEndedBefore,
      failuresBefore: failuresBefore, invitationsBefore: invitationsBefore, now: now)
  }
  func signInFailures(key: String) throws -> SignInThrottle.Record { try store.signInFailures(key: key) }
  func updateSignInFailures(
    key: String, _ change: (SignInThrottle.Record) throws -> SignInThrottle.Record?
  ) throws -> SignInThrottle.Record? {
    try store.updateSignInFailures(key: key, change)
  }
}
