import Foundation
import TollgateDomain

/// A person who signs in to the console.
public struct PersonRecord: Sendable, Hashable {
  /// Internal id.
  public var id: Int64
  /// Lower-case e-mail address; unique.
  public var email: String
  /// The name they gave, if any.
  public var name: String?
  /// Argon2id hash of the password; nil for a person who only signs in through SSO.
  public var passwordHash: String?
  /// When they accepted their first invitation.
  public var createdAt: Date
  /// When an owner disabled them: they cannot sign in and their sessions ended.
  public var disabledAt: Date?
  /// When they turned on a second factor (TOTP); nil: password only.
  public var twoFactorSince: Date? = nil

  /// Every stored field.
  public init(
    id: Int64, email: String, name: String?, passwordHash: String?, createdAt: Date, disabledAt: Date?,
    twoFactorSince: Date? = nil
  ) {
    self.twoFactorSince = twoFactorSince
    self.id = id
    self.email = email
    self.name = name
    self.passwordHash = passwordHash
    self.createdAt = createdAt
    self.disabledAt = disabledAt
  }
}

/// A person's second factor as stored: the TOTP secret and the one being set up, both sealed.
public struct TwoFactorRecord: Sendable, Hashable {
  /// The confirmed secret, sealed (nil: none).
  public var secret: String?
  /// A secret shown for set-up but not confirmed yet, sealed.
  public var pending: String?
  /// The last step a code was accepted for (no code of it or before is taken again).
  public var lastStep: Int64?

  /// Every stored field.
  public init(secret: String?, pending: String?, lastStep: Int64?) {
    self.secret = secret
    self.pending = pending
    self.lastStep = lastStep
  }
}

/// A person's role in one app.
public struct MembershipRecord: Sendable, Hashable {
  /// The person.
  public var personId: Int64
  /// The app.
  public var appId: Int64
  /// The app's name.
  public var appName: String
  /// What they may do there.
  public var role: Role
  /// The app's owners require a second factor of everyone.
  public var requiresTwoFactor: Bool = false

  /// Every stored field.
  public init(personId: Int64, appId: Int64, appName: String, role: Role, requiresTwoFactor: Bool = false) {
    self.requiresTwoFactor = requiresTwoFactor
    self.personId = personId
    self.appId = appId
    self.appName = appName
    self.role = role
  }
}

/// An invitation to join an app with a role, accepted once through its link.
public struct InvitationRecord: Sendable, Hashable {
  /// SHA-256 of the link's token (the token itself is only in the link).
  public var tokenHash: String
  /// Who may accept it (lower case).
  public var email: String
  /// The app.
  public var appId: Int64
  /// The role it gives.
  public var role: Role
  /// When it was made.
  public var createdAt: Date
  /// When it stops working.
  public var expiresAt: Date
  /// When it was accepted (or withdrawn); then it opens nothing.
  public var acceptedAt: Date?
  /// Who made it (a person's e-mail, a key id or `cli`).
  public var invitedBy: String
  /// A link that lets someone who already signs in choose a new password (an owner's reset),
  /// rather than an invitation to join.
  public var resetsPassword: Bool = false

  /// Every stored field.
  public init(
    tokenHash: String, email: String, appId: Int64, role: Role, createdAt: Date, expiresAt: Date,
    acceptedAt: Date?, invitedBy: String, resetsPassword: Bool = false
  ) {
    self.resetsPassword = resetsPassword
    self.tokenHash = tokenHash
    self.email = email
    self.appId = appId
    self.role = role
    self.createdAt = createdAt
    self.expiresAt = expiresAt
    self.acceptedAt = acceptedAt
    self.invitedBy = invitedBy
  }
}

/// A signed-in console session, kept server-side; the cookie holds its id, the table only
/// the id's hash.
public struct SessionRecord: Sendable, Hashable {
  /// SHA-256 of the cookie's id.
  public var idHash: String
  /// Whose session it is.
  public var personId: Int64
  /// The token state-changing requests must carry (`X-CSRF-Token`).
  public var csrfToken: String
  /// Sign-in time (absolute expiry counts from it).
  public var createdAt: Date
  /// The last request (idle expiry counts from it; kept to the minute).
  public var lastSeenAt: Date
  /// The address that signed in.
  public var address: String
  /// When it was signed out or ended by an owner.
  public var endedAt: Date?
  /// How the person signed in: `password` (with a second factor when they have one) or `sso`
  /// (the identity provider's own checks apply).
  public var method: String = "password"

  /// Every stored field.
  public init(
    idHash: String, personId: Int64, csrfToken: String, createdAt: Date, lastSeenAt: Date, address: String,
    endedAt: Date?, method: String = "password"
  ) {
    self.method = method
    self.idHash = idHash
    self.personId = personId
    self.csrfToken = csrfToken
    self.createdAt = createdAt
    self.lastSeenAt = lastSeenAt
    self.address = address
    self.endedAt = endedAt
  }
}

/// Single sign-on as stored: the settings and the client secret sealed with the secrets key.
public struct SingleSignOnRecord: Sendable, Hashable {
  /// What the operator set.
  public var settings: SingleSignOnSettings
  /// The client secret, sealed.
  public var sealedSecret: String
  /// When it was last set.
  public var updatedAt: Date
  /// Who set it (`cli`).
  public var updatedBy: String

  /// Every stored field.
  public init(settings: SingleSignOnSettings, sealedSecret: String, updatedAt: Date, updatedBy: String) {
    self.settings = settings
    self.sealedSecret = sealedSecret
    self.updatedAt = updatedAt
    self.updatedBy = updatedBy
  }
}

/// A sign-in sent to the provider and not back yet.
public struct SignOnRequestRecord: Sendable, Hashable {
  /// SHA-256 of the `state` value (the browser holds the value in a cookie and the provider
  /// sends it back).
  public var stateHash: String
  /// The nonce the ID token must carry.
  public var nonce: String
  /// The PKCE verifier the code is redeemed with.
  public var codeVerifier: String
  /// The redirect URI the provider was given (the token request repeats it).
  public var redirectURI: String
  /// When it began (it lasts ten minutes).
  public var createdAt: Date

  /// Every stored field.
  public init(stateHash: String, nonce: String, codeVerifier: String, redirectURI: String, createdAt: Date) {
    self.stateHash = stateHash
    self.nonce = nonce
    self.codeVerifier = codeVerifier
    self.redirectURI = redirectURI
    self.createdAt = createdAt
  }
}

/// What a single sign-on decided to write.
public struct SignOnWrite: Sendable, Hashable {
  /// The existing person; nil: create one with `email` and `name`.
  public var personId: Int64?
  /// Lower-case e-mail.
  public var email: String
  /// Their name at the provider.
  public var name: String?
  /// The provider.
  public var issuer: String
  /// Their id there.
  public var subject: String
  /// Invitations to accept, by token hash.
  public var invitations: [String]
  /// A role to give when they have none in that app.
  public var membership: SingleSignOnSettings.DefaultMembership?
  /// Now.
  public var at: Date

  /// Every field.
  public init(
    personId: Int64?, email: String, name: String?, issuer: String, subject: String, invitations: [String],
    membership: SingleSignOnSettings.DefaultMembership?, at: Date
  ) {
    self.personId = personId
    self.email = email
    self.name = name
    self.issuer = issuer
    self.subject = subject
    self.invitations = invitations
    self.membership = membership
    self.at = at
  }
}
