import Foundation
import TollgateDomain

/// `SingleSignOnRepository` on SQL.
extension RelationalStore {
  public func singleSignOn() throws -> SingleSignOnRecord? {
    try with { db in
      try db.query(
        """
        SELECT issuer, client_id, client_secret, label, allowed_domains, default_app_id, default_role, updated_at,
          updated_by FROM sso_settings WHERE id = 1
        """
      ).first.map { row in
        let domains = try row.decode("allowed_domains", as: String.self).split(separator: ",").map(String.init)
        var membership: SingleSignOnSettings.DefaultMembership?
        if let appId = try row.decode("default_app_id", as: Int64?.self) {
          let name = try row.decode("default_role", as: String.self)
          guard let role = Role(rawValue: name) else { throw StoreError.corruptRow("unknown role \(name)") }
          membership = .init(appId: appId, role: role)
        }
        return SingleSignOnRecord(
          settings: SingleSignOnSettings(
            issuer: try row.decode("issuer"), clientId: try row.decode("client_id"), label: try row.decode("label"),
            allowedDomains: domains, defaultMembership: membership),
          sealedSecret: try row.decode("client_secret"), updatedAt: try row.decode("updated_at"),
          updatedBy: try row.decode("updated_by"))
      }
    }
  }

  public func setSingleSignOn(_ record: SingleSignOnRecord?) throws {
    try with { db in
      try db.transaction {
        try db.query("DELETE FROM sso_settings WHERE id = 1")
        guard let record else { return }
        let settings = record.settings
        try db.query(
          """
          INSERT INTO sso_settings (id, issuer, client_id, client_secret, label, allowed_domains, default_app_id,
            default_role, updated_at, updated_by) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          [
            .text(settings.issuer), .text(settings.clientId), .text(record.sealedSecret), .text(settings.label),
            .text(settings.allowedDomains.joined(separator: ",")),
            settings.defaultMembership.map { .integer($0.appId) } ?? .null,
            settings.defaultMembership.map { .text($0.role.rawValue) } ?? .null,
            .real(record.updatedAt.timeIntervalSince1970), .text(record.updatedBy),
          ])
      }
    }
  }

  public func addSignOnRequest(_ request: SignOnRequestRecord) throws {
    try with { db in
      try db.query(
        """
        INSERT INTO sso_requests (state_hash, nonce, code_verifier, redirect_uri, created_at) VALUES (?, ?, ?, ?, ?)
        """,
        [
          .text(request.stateHash), .text(request.nonce), .text(request.codeVerifier), .text(request.redirectURI),
          .real(request.createdAt.timeIntervalSince1970),
        ])
    }
  }

  public func takeSignOnRequest(stateHash: String) throws -> SignOnRequestRecord? {
    try with { db in
      try db.query(
        """
        DELETE FROM sso_requests WHERE state_hash = ?
        RETURNING state_hash, nonce, code_verifier, redirect_uri, created_at
        """, [.text(stateHash)]
      ).first.map { row in
        SignOnRequestRecord(
          stateHash: try row.decode("state_hash"), nonce: try row.decode("nonce"),
          codeVerifier: try row.decode("code_verifier"), redirectURI: try row.decode("redirect_uri"),
          createdAt: try row.decode("created_at"))
      }
    }
  }

  public func person(issuer: String, subject: String) throws -> PersonRecord? {
    try with { db in
      try db.query(
        """
        SELECT p.id, p.email, p.name, p.password_hash, p.created_at, p.disabled_at, p.totp_enabled_at
        FROM person_identities i JOIN people p ON p.id = i.person_id WHERE i.issuer = ? AND i.subject = ?
        """, [.text(issuer), .text(subject)]
      ).first.map(Self.person)
    }
  }

  public func openInvitations(email: String, now: Date) throws -> [InvitationRecord] {
    try with { db in
      try db.query(
        """
        SELECT \(Self.invitationColumns) FROM invitations
        WHERE email = ? AND accepted_at IS NULL AND purpose = 'join' AND expires_at > ? ORDER BY created_at
        """, [.text(email), .real(now.timeIntervalSince1970)]
      ).map(Self.invitation)
    }
  }

  public func recordSignOn(_ write: SignOnWrite) throws -> PersonRecord {
    try with { db in
      try db.transaction {
        let at = SQLValue.real(write.at.timeIntervalSince1970)
        if write.personId == nil {
          try db.query(
            """
            INSERT INTO people (email, name, password_hash, created_at) VALUES (?, ?, NULL, ?)
            ON CONFLICT (email) DO NOTHING
            """, [.text(write.email), write.name.map(SQLValue.text) ?? .null, at])
        }
        let query =
          write.personId.map { ("SELECT \(Self.personColumns) FROM people WHERE id = ?", SQLValue.integer($0)) }
          ?? ("SELECT \(Self.personColumns) FROM people WHERE email = ?", .text(write.email))
        guard let person = try db.query(query.0, [query.1]).first.map(Self.person) else {
          throw StoreError.conflict("the person signing in does not exist")
        }
        try db.query(
          """
          INSERT INTO person_identities (issuer, subject, person_id, created_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (issuer, subject) DO NOTHING
          """, [.text(write.issuer), .text(write.subject), .integer(person.id), at])
        for tokenHash in write.invitations {
          try db.query(
            "UPDATE invitations SET accepted_at = ? WHERE token_hash = ? AND accepted_at IS NULL",
            [at, .text(tokenHash)])
          guard db.changes == 1 else { continue }
          try db.query(
            """
            INSERT INTO memberships (person_id, app_id, role)
            SELECT ?, app_id, role FROM invitations WHERE token_hash = ?
            ON CONFLICT (person_id, app_id) DO UPDATE SET role = excluded.role
            """, [.integer(person.id), .text(tokenHash)])
        }
        if let membership = write.membership {
          try db.query(
            """
            INSERT INTO memberships (person_id, app_id, role) VALUES (?, ?, ?)
            ON CONFLICT (person_id, app_id) DO NOTHING
            """, [.integer(person.id), .integer(membership.appId), .text(membership.role.rawValue)])
        }
        return person
      }
    }
  }

  @discardableResult
  public func forgetSignOnRequests(before: Date) throws -> Int {
    try with { db in
      try db.query("DELETE FROM sso_requests WHERE created_at < ?", [.real(before.timeIntervalSince1970)])
      return db.changes
    }
  }
}
