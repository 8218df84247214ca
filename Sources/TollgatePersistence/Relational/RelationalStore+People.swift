import Foundation
import TollgateDomain

/// `PeopleRepository` on SQL.
extension RelationalStore {
  static var personColumns: String { "id, email, name, password_hash, created_at, disabled_at, totp_enabled_at" }

  static func person(_ row: SQLRow) throws -> PersonRecord {
    PersonRecord(
      id: try row.decode("id"), email: try row.decode("email"), name: try row.decode("name"),
      passwordHash: try row.decode("password_hash"), createdAt: try row.decode("created_at"),
      disabledAt: try row.decode("disabled_at"), twoFactorSince: try row.decode("totp_enabled_at"))
  }

  static func role(_ row: SQLRow) throws -> Role {
    let name = try row.decode("role", as: String.self)
    guard let role = Role(rawValue: name) else { throw StoreError.corruptRow("unknown role \(name)") }
    return role
  }

  public func person(email: String) throws -> PersonRecord? {
    try with { db in
      try db.query("SELECT \(Self.personColumns) FROM people WHERE email = ?", [.text(email)]).first.map(Self.person)
    }
  }

  public func person(id: Int64) throws -> PersonRecord? {
    try with { db in
      try db.query("SELECT \(Self.personColumns) FROM people WHERE id = ?", [.integer(id)]).first.map(Self.person)
    }
  }

  public func setPassword(personId: Int64, hash: String) throws {
    try with { db in
      try db.query("UPDATE people SET password_hash = ? WHERE id = ?", [.text(hash), .integer(personId)])
    }
  }

  public func setDisabled(personId: Int64, at: Date?) throws {
    try with { db in
      try db.transaction {
        try db.query(
          "UPDATE people SET disabled_at = ? WHERE id = ?",
          [at.map { .real($0.timeIntervalSince1970) } ?? .null, .integer(personId)])
        if let at { try Self.endSessions(db, personId: personId, at: at) }
      }
    }
  }

  public func memberships(personId: Int64) throws -> [MembershipRecord] {
    try with { db in
      try db.query(
        """
        SELECT m.person_id, m.app_id, a.name, m.role, a.require_two_factor FROM memberships m
        JOIN apps a ON a.id = m.app_id WHERE m.person_id = ? ORDER BY a.name
        """, [.integer(personId)]
      ).map { row in
        MembershipRecord(
          personId: try row.decode("person_id"), appId: try row.decode("app_id"), appName: try row.decode("name"),
          role: try Self.role(row), requiresTwoFactor: try row.decode("require_two_factor", as: Int64.self) != 0)
      }
    }
  }

  public func members(appId: Int64) throws -> [(person: PersonRecord, role: Role)] {
    try with { db in
      try db.query(
        """
        SELECT p.id, p.email, p.name, p.password_hash, p.created_at, p.disabled_at, p.totp_enabled_at, m.role
        FROM memberships m JOIN people p ON p.id = m.person_id WHERE m.app_id = ? ORDER BY p.email
        """, [.integer(appId)]
      ).map { row in (try Self.person(row), try Self.role(row)) }
    }
  }

  public func setRole(personId: Int64, appId: Int64, role: Role?) throws {
    try with { db in
      if let role {
        try db.query(
          """
          INSERT INTO memberships (person_id, app_id, role) VALUES (?, ?, ?)
          ON CONFLICT (person_id, app_id) DO UPDATE SET role = excluded.role
          """, [.integer(personId), .integer(appId), .text(role.rawValue)])
      } else {
        try db.query(
          "DELETE FROM memberships WHERE person_id = ? AND app_id = ?", [.integer(personId), .integer(appId)])
      }
    }
  }

  static var invitationColumns: String {
    "token_hash, email, app_id, role, created_at, expires_at, accepted_at, invited_by, purpose"
  }

  static func invitation(_ row: SQLRow) throws -> InvitationRecord {
    InvitationRecord(
      tokenHash: try row.decode("token_hash"), email: try row.decode("email"), appId: try row.decode("app_id"),
      role: try role(row), createdAt: try row.decode("created_at"), expiresAt: try row.decode("expires_at"),
      acceptedAt: try row.decode("accepted_at"), invitedBy: try row.decode("invited_by"),
      resetsPassword: try row.decode("purpose", as: String.self) == "reset")
  }

  public func addInvitation(_ invitation: InvitationRecord) throws {
    try with { db in
      try db.query(
        "INSERT INTO invitations (\(Self.invitationColumns)) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)",
        [
          .text(invitation.tokenHash), .text(invitation.email), .integer(invitation.appId),
          .text(invitation.role.rawValue), .real(invitation.createdAt.timeIntervalSince1970),
          .real(invitation.expiresAt.timeIntervalSince1970), .text(invitation.invitedBy),
          .text(invitation.resetsPassword ? "reset" : "join"),
        ])
    }
  }

  public func invitation(tokenHash: String) throws -> InvitationRecord? {
    try with { db in
      try db.query("SELECT \(Self.invitationColumns) FROM invitations WHERE token_hash = ?", [.text(tokenHash)])
        .first.map(Self.invitation)
    }
  }

  public func pendingInvitations(appId: Int64) throws -> [InvitationRecord] {
    try with { db in
      try db.query(
        """
        SELECT \(Self.invitationColumns) FROM invitations WHERE app_id = ? AND accepted_at IS NULL
        ORDER BY created_at DESC
        """, [.integer(appId)]
      ).map(Self.invitation)
    }
  }

  public func acceptInvitation(tokenHash: String, at: Date, name: String?, newPasswordHash: String?) throws
    -> PersonRecord?
  {
    try with { db in
      try db.transaction {
        try db.query(
          "UPDATE invitations SET accepted_at = ? WHERE token_hash = ? AND accepted_at IS NULL",
          [.real(at.timeIntervalSince1970), .text(tokenHash)])
        guard db.changes == 1,
          let invitation = try db.query(
            "SELECT \(Self.invitationColumns) FROM invitations WHERE token_hash = ?", [.text(tokenHash)]
          ).first.map(Self.invitation)
        else { return nil }
        if let newPasswordHash, invitation.resetsPassword {
          try db.query(
            "UPDATE people SET password_hash = ? WHERE email = ?", [.text(newPasswordHash), .text(invitation.email)])
          try db.query(
            """
            UPDATE console_sessions SET ended_at = ? WHERE ended_at IS NULL
              AND person_id = (SELECT id FROM people WHERE email = ?)
            """, [.real(at.timeIntervalSince1970), .text(invitation.email)])
        } else if let newPasswordHash {
          try db.query(
            """
            INSERT INTO people (email, name, password_hash, created_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (email) DO NOTHING
            """,
            [
              .text(invitation.email), name.map(SQLValue.text) ?? .null, .text(newPasswordHash),
              .real(at.timeIntervalSince1970),
            ])
        }
        guard
          let person = try db.query(
            "SELECT \(Self.personColumns) FROM people WHERE email = ?", [.text(invitation.email)]
          ).first.map(Self.person)
        else { throw StoreError.conflict("the invited person does not exist and no password was given") }
        try db.query(
          """
          INSERT INTO memberships (person_id, app_id, role) VALUES (?, ?, ?)
          ON CONFLICT (person_id, app_id) DO UPDATE SET role = excluded.role
          """, [.integer(person.id), .integer(invitation.appId), .text(invitation.role.rawValue)])
        return person
      }
    }
  }

  static var sessionColumns: String {
    "id_hash, person_id, csrf_token, created_at, last_seen_at, address, ended_at, method"
  }

  public func addSession(_ session: SessionRecord) throws {
    try with { db in
      try db.query(
        "INSERT INTO console_sessions (\(Self.sessionColumns)) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
        [
          .text(session.idHash), .integer(session.personId), .text(session.csrfToken),
          .real(session.createdAt.timeIntervalSince1970), .real(session.lastSeenAt.timeIntervalSince1970),
          .text(session.address), .text(session.method),
        ])
    }
  }

  public func session(idHash: String) throws -> SessionRecord? {
    try with { db in
      try db.query("SELECT \(Self.sessionColumns) FROM console_sessions WHERE id_hash = ?", [.text(idHash)])
        .first.map { row in
          SessionRecord(
            idHash: try row.decode("id_hash"), personId: try row.decode("person_id"),
            csrfToken: try row.decode("csrf_token"), createdAt: try row.decode("created_at"),
            lastSeenAt: try row.decode("last_seen_at"), address: try row.decode("address"),
            endedAt: try row.decode("ended_at"), method: try row.decode("method"))
        }
    }
  }

  public func touchSession(idHash: String, at: Date) throws {
    try with { db in
      try db.query(
        "UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?",
        [.real(at.timeIntervalSince1970), .text(idHash)])
    }
  }

  public func endSession(idHash: String, at: Date) throws {
    try with { db in
      try db.query(
        "UPDATE console_sessions SET ended_at = ? WHERE id_hash = ? AND ended_at IS NULL",
        [.real(at.timeIntervalSince1970), .text(idHash)])
    }
  }

  public func endSessions(personId: Int64, at: Date) throws {
    try with { db in try Self.endSessions(db, personId: personId, at: at) }
  }

  static func endSessions(_ db: any SQLConnection, personId: Int64, at: Date) throws {
    try db.query(
      "UPDATE console_sessions SET ended_at = ? WHERE person_id = ? AND ended_at IS NULL",
      [.real(at.timeIntervalSince1970), .integer(personId)])
  }

  public func twoFactor(personId: Int64) throws -> TwoFactorRecord {
    try with { db in
      guard
        let row = try db.query(
          "SELECT totp_secret, totp_pending, totp_last_step FROM people WHERE id = ?", [.integer(personId)]
        ).first
      else { return TwoFactorRecord(secret: nil, pending: nil, lastStep: nil) }
      return TwoFactorRecord(
        secret: try row.decode("totp_secret"), pending: try row.decode("totp_pending"),
        lastStep: try row.decode("totp_last_step"))
    }
  }

  public func setPendingTwoFactor(personId: Int64, sealed: String) throws {
    try with { db in
      try db.query("UPDATE people SET totp_pending = ? WHERE id = ?", [.text(sealed), .integer(personId)])
    }
  }

  public func enableTwoFactor(personId: Int64, pending: String, at: Date, step: Int64, recoveryHashes: [String])
    throws -> Bool
  {
    try with { db in
      try db.transaction {
        try db.query(
          """
          UPDATE people SET totp_secret = totp_pending, totp_pending = NULL, totp_last_step = ?, totp_enabled_at = ?
          WHERE id = ? AND totp_pending = ?
          """, [.integer(step), .real(at.timeIntervalSince1970), .integer(personId), .text(pending)])
        guard db.changes == 1 else { return false }
        try db.query("DELETE FROM recovery_codes WHERE person_id = ?", [.integer(personId)])
        for hash in recoveryHashes {
          try db.query(
            "INSERT INTO recovery_codes (person_id, code_hash) VALUES (?, ?)", [.integer(personId), .text(hash)])
        }
        return true
      }
    }
  }

  public func disableTwoFactor(personId: Int64) throws {
    try with { db in
      try db.transaction {
        try db.query(
          """
          UPDATE people SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL, totp_enabled_at = NULL
          WHERE id = ?
          """, [.integer(personId)])
        try db.query("DELETE FROM recovery_codes WHERE person_id = ?", [.integer(personId)])
      }
    }
  }

  public func useTwoFactorStep(personId: Int64, step: Int64) throws -> Bool {
    try with { db in
      try db.query(
        "UPDATE people SET totp_last_step = ? WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)",
        [.integer(step), .integer(personId), .integer(step)])
      return db.changes == 1
    }
  }

  public func useRecoveryCode(personId: Int64, hash: String, at: Date) throws -> Bool {
    try with { db in
      try db.query(
        "UPDATE recovery_codes SET used_at = ? WHERE person_id = ? AND code_hash = ? AND used_at IS NULL",
        [.real(at.timeIntervalSince1970), .integer(personId), .text(hash)])
      return db.changes == 1
    }
  }

  public func unusedRecoveryCodes(personId: Int64) throws -> Int {
    try with { db in
      guard
        let row = try db.query(
          "SELECT count(*) AS unused FROM recovery_codes WHERE person_id = ? AND used_at IS NULL", [.integer(personId)]
        ).first
      else { throw StoreError.corruptRow("count(*) answered no row") }
      return Int(try row.decode("unused", as: Int64.self))
    }
  }

  public func requiresTwoFactor(appId: Int64) throws -> Bool {
    try with { db in
      guard let row = try db.query("SELECT require_two_factor FROM apps WHERE id = ?", [.integer(appId)]).first else {
        return false
      }
      return try row.decode("require_two_factor", as: Int64.self) != 0
    }
  }

  public func setRequiresTwoFactor(appId: Int64, _ required: Bool) throws {
    try with { db in
      try db.query(
        "UPDATE apps SET require_two_factor = ? WHERE id = ?", [.integer(required ? 1 : 0), .integer(appId)])
    }
  }

  public func forgetStale(
    sessionsCreatedBefore: Date, sessionsEndedBefore: Date, failuresBefore: Date, invitationsBefore: Date, now: Date
  ) throws -> Int {
    try with { db in
      try db.transaction {
        var deleted = 0
        try db.query(
          "DELETE FROM console_sessions WHERE created_at < ? OR (ended_at IS NOT NULL AND ended_at < ?)",
          [.real(sessionsCreatedBefore.timeIntervalSince1970), .real(sessionsEndedBefore.timeIntervalSince1970)])
        deleted += db.changes
        try db.query(
          """
          DELETE FROM sign_in_failures WHERE (locked_until IS NULL OR locked_until < ?)
            AND (last_failure IS NULL OR last_failure < ?)
          """, [.real(now.timeIntervalSince1970), .real(failuresBefore.timeIntervalSince1970)])
        deleted += db.changes
        try db.query(
          "DELETE FROM invitations WHERE expires_at < ?", [.real(invitationsBefore.timeIntervalSince1970)])
        deleted += db.changes
        return deleted
      }
    }
  }

  public func signInFailures(key: String) throws -> SignInThrottle.Record {
    try with { db in try Self.signInFailures(db, key: key, lock: "") }
  }

  static func signInFailures(_ db: any SQLConnection, key: String, lock: String) throws -> SignInThrottle.Record {
    try db.query(
      "SELECT failures, last_failure, locked_until FROM sign_in_failures WHERE key = ?\(lock)", [.text(key)]
    ).first.map { row in
      SignInThrottle.Record(
        failures: Int(try row.decode("failures", as: Int64.self)), lastFailure: try row.decode("last_failure"),
        lockedUntil: try row.decode("locked_until"))
    } ?? SignInThrottle.Record(failures: 0, lastFailure: nil, lockedUntil: nil)
  }

  public func updateSignInFailures(
    key: String, _ change: (SignInThrottle.Record) throws -> SignInThrottle.Record?
  ) throws -> SignInThrottle.Record? {
    try with { db in
      try db.transaction {
        // The row exists before it is locked, so two first failures do not both insert.
        try db.query(
          "INSERT INTO sign_in_failures (key, failures) VALUES (?, 0) ON CONFLICT (key) DO NOTHING", [.text(key)])
        guard let record = try change(try Self.signInFailures(db, key: key, lock: dialect.lockRow)) else {
          try db.query("DELETE FROM sign_in_failures WHERE key = ?", [.text(key)])
          return nil
        }
        try db.query(
          "UPDATE sign_in_failures SET failures = ?, last_failure = ?, locked_until = ? WHERE key = ?",
          [
            .integer(Int64(record.failures)), record.lastFailure.map { .real($0.timeIntervalSince1970) } ?? .null,
            record.lockedUntil.map { .real($0.timeIntervalSince1970) } ?? .null, .text(key),
          ])
        return record
      }
    }
  }
}
