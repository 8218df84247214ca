import Foundation
import TollgateSupport

/// Single sign-on through an OpenID Connect provider, as the operator set it up
/// (`tollgate sso set`): one provider for the whole installation.
public struct SingleSignOnSettings: Sendable, Hashable {
  /// The provider's issuer URL, exactly as its discovery document states it.
  public var issuer: String
  /// The client id the provider gave Tollgate.
  public var clientId: String
  /// What the console's button says ("Sign in with …").
  public var label: String
  /// E-mail domains that may sign in (lower case); empty: any domain, but only people who
  /// already belong or were invited.
  public var allowedDomains: [String]
  /// The app and role a first sign-in from an allowed domain gets when nobody invited them;
  /// nil: such a sign-in is refused.
  public var defaultMembership: DefaultMembership?

  /// Where someone nobody invited lands.
  public struct DefaultMembership: Sendable, Hashable {
    /// The app.
    public var appId: Int64
    /// The role there.
    public var role: Role

    /// Both fields.
    public init(appId: Int64, role: Role) {
      self.appId = appId
      self.role = role
    }
  }

  /// Every field.
  public init(
    issuer: String, clientId: String, label: String, allowedDomains: [String], defaultMembership: DefaultMembership?
  ) {
    self.issuer = issuer
    self.clientId = clientId
    self.label = label
    self.allowedDomains = allowedDomains
    self.defaultMembership = defaultMembership
  }

  /// Whether someone with `email` may sign in at all.
  public func admits(email: String) -> Bool {
    guard !allowedDomains.isEmpty else { return true }
    guard let domain = Self.domain(of: email) else { return false }
    return allowedDomains.contains(domain)
  }

  /// The part after the last `@`, lower case; nil when there is none.
  public static func domain(of email: String) -> String? {
    guard let at = email.lastIndex(of: "@") else { return nil }
    let domain = email[email.index(after: at)...].lowercased()
    return domain.isEmpty ? nil : domain
  }

  /// An issuer Tollgate will talk to: `https`, or `http` on loopback (a provider on the same
  /// machine, as in tests); no query or fragment (OpenID Connect Discovery §2).
  public static func issuerProblem(_ issuer: String) -> String? {
    guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
      url.query == nil, url.fragment == nil
    else { return "the issuer must be a URL without query or fragment, like https://accounts.google.com" }
    if scheme == "https" { return nil }
    if scheme == "http", ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) { return nil }
    return "the issuer must use https (http only on loopback)"
  }
}

/// Why a single sign-on ended without a session: the code the console shows and the reason
/// written to the log.
public struct SingleSignOnRefusal: Error, Sendable, Hashable {
  /// What went wrong, in the console's terms.
  public enum Code: String, Sendable, Hashable, CaseIterable {
    /// Single sign-on is not set up.
    case notConfigured = "not_configured"
    /// The person cancelled at the provider, or it refused them.
    case cancelled
    /// The sign-in took too long, was finished already, or began in another browser.
    case expired
    /// The provider could not be reached or answered something unreadable.
    case providerUnavailable = "provider_unavailable"
    /// The ID token failed a check (signature, issuer, audience, expiry, nonce).
    case tokenInvalid = "token_invalid"
    /// The provider does not vouch for the e-mail address.
    case emailUnverified = "email_unverified"
    /// The e-mail's domain is not allowed.
    case domainNotAllowed = "domain_not_allowed"
    /// Nobody invited this person and there is no default role.
    case notInvited = "not_invited"
    /// An owner disabled this person.
    case disabled
  }

  /// What went wrong.
  public let code: Code
  /// The detail, for the log (never shown to the browser: it may name claims).
  public let reason: String

  /// A refusal.
  public init(_ code: Code, _ reason: String) {
    self.code = code
    self.reason = reason
  }
}

/// The claims of an ID token Tollgate reads (OpenID Connect Core §2, §5.1).
public struct IDTokenClaims: Decodable, Sendable, Hashable {
  /// Issuer.
  public var iss: String
  /// The person's stable id at the provider.
  public var sub: String
  /// Audience: one client id or several.
  public var aud: [String]
  /// Expiry, seconds since 1970.
  public var exp: Double
  /// Issued at.
  public var iat: Double?
  /// Not before.
  public var nbf: Double?
  /// The value Tollgate sent with the authorization request.
  public var nonce: String?
  /// Authorized party (required when there are several audiences).
  public var azp: String?
  /// The person's e-mail address.
  public var email: String?
  /// Whether the provider checked it; some providers send `"true"` as a string.
  public var emailVerified: Bool?
  /// Their name.
  public var name: String?

  enum CodingKeys: String, CodingKey {
    case iss, sub, aud, exp, iat, nbf, nonce, azp, email, name
    case emailVerified = "email_verified"
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    iss = try container.decode(String.self, forKey: .iss)
    sub = try container.decode(String.self, forKey: .sub)
    if let one = try? container.decode(String.self, forKey: .aud) {
      aud = [one]
    } else {
      aud = try container.decode([String].self, forKey: .aud)
    }
    exp = try container.decode(Double.self, forKey: .exp)
    iat = try container.decodeIfPresent(Double.self, forKey: .iat)
    nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
    nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
    azp = try container.decodeIfPresent(String.self, forKey: .azp)
    email = try container.decodeIfPresent(String.self, forKey: .email)
    name = try container.decodeIfPresent(String.self, forKey: .name)
    if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
      emailVerified = flag
    } else {
      emailVerified = try container.decodeIfPresent(String.self, forKey: .emailVerified).map { $0 == "true" }
    }
  }
}

/// An ID token checked as OpenID Connect Core §3.1.3.7 asks: signed (RS256 or ES256) by one of
/// the provider's keys, from the configured issuer, for this client, not expired, carrying the
/// nonce this sign-in sent.
public enum IDTokenCheck {
  /// Clock skew tolerated between the provider and this server.
  public static let leeway: TimeInterval = 60

  /// The token's header fields that choose the key.
  struct Header: Decodable {
    var alg: String
    var kid: String?
  }

  /// The verified claims, or a `.tokenInvalid` refusal. `keys` is the provider's key set;
  /// `unknownKey` is thrown separately so the caller can fetch the set again once (keys rotate).
  package static func verify(
    _ token: String, keys: [JSONWebKey], issuer: String, clientId: String, nonce: String, now: Date
  ) throws(IDTokenFailure) -> IDTokenClaims {
    guard let jws = CompactJWS(token) else { throw .invalid("the ID token is not a signed JWT") }
    guard let header = try? JSONDecoder().decode(Header.self, from: jws.header) else {
      throw .invalid("the ID token's header is unreadable")
    }
    guard header.alg == "RS256" || header.alg == "ES256" else {
      throw .invalid("the ID token is signed with \(header.alg); only RS256 and ES256 are accepted")
    }
    let candidates = keys.filter { $0.algorithm == header.alg && (header.kid == nil || $0.keyId == header.kid) }
    guard !candidates.isEmpty else { throw .unknownKey(header.kid ?? "(no kid)") }
    guard
      candidates.contains(where: { $0.verify(algorithm: header.alg, signature: jws.signature, over: jws.signingInput) })
    else { throw .invalid("the ID token's signature does not verify with the provider's key") }
    let claims: IDTokenClaims
    do { claims = try JSONDecoder().decode(IDTokenClaims.self, from: jws.payload) } catch {
      throw .invalid("the ID token's claims are unreadable (iss, sub, aud and exp are required)")
    }
    guard claims.iss == issuer else { throw .invalid("the ID token's issuer is \(claims.iss), not \(issuer)") }
    guard claims.aud.contains(clientId) else {
      throw .invalid("the ID token is for \(claims.aud.joined(separator: ", ")), not this client")
    }
    if claims.aud.count > 1, claims.azp != clientId {
      throw .invalid("the ID token has several audiences and another authorized party")
    }
    let seconds = now.timeIntervalSince1970
    guard claims.exp + leeway > seconds else { throw .invalid("the ID token expired") }
    if let nbf = claims.nbf, nbf - leeway > seconds { throw .invalid("the ID token is not valid yet") }
    if let iat = claims.iat, iat - leeway > seconds { throw .invalid("the ID token was issued in the future") }
    guard let stated = claims.nonce, stated.utf8.count == nonce.utf8.count,
      zip(stated.utf8, nonce.utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
    else { throw .invalid("the ID token's nonce is not this sign-in's") }
    return claims
  }
}

/// Why an ID token was refused.
public enum IDTokenFailure: Error, Sendable, Hashable {
  /// No key of the set matches the token's `kid` and algorithm.
  case unknownKey(String)
  /// A check failed.
  case invalid(String)
}

/// Who a verified sign-in is, and what it may become (the rules; the service reads and
/// writes the rows).
public enum SignOnMatch: Sendable, Hashable {
  /// Sign in as this existing person (linked before, or found by e-mail and linked now).
  case existing(personId: Int64)
  /// A new person, who joins the apps of their pending invitations.
  case invited
  /// A new person, who joins the default app with the default role.
  case defaultRole(SingleSignOnSettings.DefaultMembership)

  /// Decides for verified `claims`: `linked` is the person already tied to (issuer, subject),
  /// `byEmail` the person with the claimed e-mail, `invitations` how many unexpired invitations
  /// to join wait for that e-mail.
  public static func decide(
    claims: IDTokenClaims, settings: SingleSignOnSettings, linked: (id: Int64, disabled: Bool)?,
    byEmail: (id: Int64, disabled: Bool)?, invitations: Int
  ) throws(SingleSignOnRefusal) -> SignOnMatch {
    guard let email = claims.email, email.contains("@") else {
      throw SingleSignOnRefusal(.emailUnverified, "the ID token has no e-mail (ask for the email scope)")
    }
    // A provider that does not vouch for the address could let anyone claim an invited one.
    guard claims.emailVerified != false else {
      throw SingleSignOnRefusal(.emailUnverified, "the provider says \(email) is not verified")
    }
    guard settings.admits(email: email) else {
      throw SingleSignOnRefusal(.domainNotAllowed, "\(email) is not in an allowed domain")
    }
    if let person = linked ?? byEmail {
      guard !person.disabled else { throw SingleSignOnRefusal(.disabled, "\(email) is disabled") }
      return .existing(personId: person.id)
    }
    if invitations > 0 { return .invited }
    // A default role needs an allow-list: without one, anyone with an account at the provider
    // (every Google account, say) would join.
    if let membership = settings.defaultMembership, !settings.allowedDomains.isEmpty {
      return .defaultRole(membership)
    }
    throw SingleSignOnRefusal(.notInvited, "nobody invited \(email) and there is no default role")
  }
}

/// PKCE (RFC 7636) with S256: the verifier stays on the server, its challenge goes to the
/// provider, and only the holder of the verifier can redeem the code.
public enum ProofKey {
  /// A new verifier: 256 random bits, base64url (43 characters).
  public static func verifier() -> String { Base64URL.encode(Data(Digest.randomBytes(32))) }

  /// `BASE64URL(SHA256(verifier))`.
  public static func challenge(_ verifier: String) -> String {
    Base64URL.encode(Data(Digest.sha256(Data(verifier.utf8))))
  }
}
