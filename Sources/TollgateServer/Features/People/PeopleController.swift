import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /v1/admin/people`, `POST /v1/admin/invitations`, `PUT`/`DELETE
/// /v1/admin/people/{personId}` and `POST /v1/admin/people/{personId}/disable|enable|unlock`:
/// an app's people, for its owners.
struct PeopleController: Sendable {
  let auth: Authenticator
  let people: PeopleService
  /// Where invitation links point (`--public-url`); nil: the console builds the link itself.
  let publicURL: String?

  /// `POST /v1/admin/invitations`.
  struct InviteBody: Decodable {
    var email: String
    var role: String
  }

  /// `PUT /v1/admin/people/{personId}`.
  struct RoleBody: Decodable {
    var role: String
  }

  /// `PUT /v1/admin/security`.
  struct SecurityBody: Decodable {
    var requireTwoFactor: Bool
    enum CodingKeys: String, CodingKey { case requireTwoFactor = "require_two_factor" }
  }

  func register(on router: inout Router) {
    router.add("GET", "/v1/admin/people", needs: .peopleWrite, auth) { _, caller in
      let (members, invitations) = try people.members(appId: caller.appId)
      return .json(
        PeoplePayload(
          requireTwoFactor: try people.requiresTwoFactor(appId: caller.appId),
          people: members.map(MemberPayload.init),
          invitations: invitations.map {
            PendingInvitationPayload(
              email: $0.email, role: $0.role.rawValue, createdAt: Timestamp.string($0.createdAt),
              expiresAt: Timestamp.string($0.expiresAt), invitedBy: $0.invitedBy)
          }))
    }
    router.add("PUT", "/v1/admin/security", needs: .peopleWrite, auth) { request, caller in
      let body = try request.decodeJSON(SecurityBody.self)
      try people.setRequiresTwoFactor(appId: caller.appId, body.requireTwoFactor, by: caller.actor)
      return .json(["require_two_factor": body.requireTwoFactor])
    }
    router.add("POST", "/v1/admin/invitations", needs: .peopleWrite, auth) { request, caller in
      let body = try request.decodeJSON(InviteBody.self)
      let (token, invitation) = try people.invite(
        appId: caller.appId, email: body.email, role: body.role, by: caller.actor)
      return created(invitation, token: token)
    }
    router.add("PUT", "/v1/admin/people/{personId}", needs: .peopleWrite, auth) { request, caller in
      let body = try request.decodeJSON(RoleBody.self)
      return .json(
        MemberPayload(
          try people.setRole(
            appId: caller.appId, personId: try Self.personId(request), role: body.role, by: caller.actor)))
    }
    router.add("DELETE", "/v1/admin/people/{personId}", needs: .peopleWrite, auth) { request, caller in
      try people.remove(appId: caller.appId, personId: try Self.personId(request), by: caller.actor)
      return .json(["removed": true])
    }
    for (action, disabled) in [("disable", true), ("enable", false)] {
      router.add("POST", "/v1/admin/people/{personId}/\(action)", needs: .peopleWrite, auth) { request, caller in
        .json(
          MemberPayload(
            try people.setDisabled(
              appId: caller.appId, personId: try Self.personId(request), disabled: disabled, by: caller.actor,
              actorPersonId: caller.personId)))
      }
    }
    router.add("POST", "/v1/admin/people/{personId}/reset-password", needs: .peopleWrite, auth) { request, caller in
      let (token, invitation) = try people.resetPassword(
        appId: caller.appId, personId: try Self.personId(request), by: caller.actor, actorPersonId: caller.personId)
      return created(invitation, token: token)
    }
    router.add("POST", "/v1/admin/people/{personId}/reset-two-factor", needs: .peopleWrite, auth) { request, caller in
      .json(
        MemberPayload(
          try people.resetTwoFactor(
            appId: caller.appId, personId: try Self.personId(request), by: caller.actor,
            actorPersonId: caller.personId)))
    }
    router.add("POST", "/v1/admin/people/{personId}/unlock", needs: .peopleWrite, auth) { request, caller in
      .json(
        MemberPayload(try people.unlock(appId: caller.appId, personId: try Self.personId(request), by: caller.actor)))
    }
  }

  /// A new invitation or reset link: its token (and link) shown this once.
  private func created(_ invitation: InvitationRecord, token: String) -> Response {
    .json(
      InvitationCreatedPayload(
        email: invitation.email, role: invitation.role.rawValue, token: token,
        url: publicURL.map { PeopleService.link(base: $0, token: token) },
        expiresAt: Timestamp.string(invitation.expiresAt)),
      status: 201)
  }

  private static func personId(_ request: Request) throws -> Int64 {
    guard let id = Int64(request.parameter("personId")), id > 0 else {
      throw DomainError.notFound(.personNotFound, "No person \(request.parameter("personId")) in this app.")
    }
    return id
  }
}

/// `GET /v1/admin/people`.
struct PeoplePayload: Codable, Sendable {
  var requireTwoFactor: Bool
  var people: [MemberPayload]
  var invitations: [PendingInvitationPayload]

  enum CodingKeys: String, CodingKey {
    case people, invitations
    case requireTwoFactor = "require_two_factor"
  }
}

/// A member of the app.
struct MemberPayload: Codable, Sendable {
  var id: Int64
  var email: String
  var name: String?
  var role: String
  var joinedAt: String
  var disabled: Bool
  var lockedUntil: String?
  var twoFactor: Bool

  enum CodingKeys: String, CodingKey {
    case id, email, name, role, disabled
    case twoFactor = "two_factor"
    case joinedAt = "joined_at"
    case lockedUntil = "locked_until"
  }

  init(_ member: PeopleService.Member) {
    id = member.person.id
    email = member.person.email
    name = member.person.name
    role = member.role.rawValue
    joinedAt = Timestamp.string(member.person.createdAt)
    disabled = member.person.disabledAt != nil
    lockedUntil = member.lockedUntil.map(Timestamp.string)
    twoFactor = member.person.twoFactorSince != nil
  }
}

/// An invitation not yet accepted.
struct PendingInvitationPayload: Codable, Sendable {
  var email: String
  var role: String
  var createdAt: String
  var expiresAt: String
  var invitedBy: String

  enum CodingKeys: String, CodingKey {
    case email, role
    case createdAt = "created_at"
    case expiresAt = "expires_at"
    case invitedBy = "invited_by"
  }
}

/// `POST /v1/admin/invitations`: the token is shown this once.
struct InvitationCreatedPayload: Codable, Sendable {
  var email: String
  var role: String
  var token: String
  var url: String?
  var expiresAt: String

  enum CodingKeys: String, CodingKey {
    case email, role, token, url
    case expiresAt = "expires_at"
  }
}
