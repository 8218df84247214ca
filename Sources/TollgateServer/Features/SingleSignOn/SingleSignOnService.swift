import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Single sign-on with OpenID Connect's authorization-code flow and PKCE: `begin` sends the
/// browser to the provider with a fresh state, nonce and code challenge; `finish` takes the code
/// back (once, within ten minutes, in the browser that began), redeems it with the verifier and
/// the client secret, checks the ID token (signature by the provider's published key, issuer,
/// audience, expiry, nonce), decides who that is (`SignOnMatch`) and opens a console session.
public final class SingleSignOnService: Sendable {
  /// How long a sign-in may stay at the provider.
  static let requestLifetime: TimeInterval = 600
  /// How long a provider's discovery document and keys are kept.
  static let cacheLifetime: TimeInterval = 3_600
  /// The shortest time between two fetches of the keys (a token naming an unknown key fetches them).
  static let keyRefetchInterval: TimeInterval = 60

  let store: any SingleSignOnRepository & PeopleRepository
  let apps: any AppRepository
  let provider: any OpenIDProviderClient
  let secrets: SecretBox?
  let sessions: ConsoleSessions?
  let time: any TimeSource
  let logger: Logger

  private struct Cached {
    var issuer: String
    var configuration: OpenIDConfiguration
    var keys: [JSONWebKey]
    var fetchedAt: Date
    var keysFetchedAt: Date
  }
  private let cache = Mutex<Cached?>(nil)

  init(
    store: any SingleSignOnRepository & PeopleRepository, apps: any AppRepository, provider: any OpenIDProviderClient,
    secrets: SecretBox?, sessions: ConsoleSessions?, time: any TimeSource, logger: Logger
  ) {
    self.store = store
    self.apps = apps
    self.provider = provider
    self.secrets = secrets
    self.sessions = sessions
    self.time = time
    self.logger = logger
  }

  /// The settings, or nil when single sign-on is off.
  public func settings() throws -> SingleSignOnRecord? { try store.singleSignOn() }

  /// What `tollgate sso set` was given.
  public struct Setup: Sendable {
    /// The provider's issuer URL.
    public var issuer: String
    /// The client id.
    public var clientId: String
    /// The client secret (read from a file).
    public var clientSecret: String
    /// The console button's label.
    public var label: String?
    /// Allowed e-mail domains.
    public var allowedDomains: [String]
    /// The app a default role applies to, by name.
    public var defaultApp: String?
    /// The default role.
    public var defaultRole: String?

    /// Every field.
    public init(
      issuer: String, clientId: String, clientSecret: String, label: String?, allowedDomains: [String],
      defaultApp: String?, defaultRole: String?
    ) {
      self.issuer = issuer
      self.clientId = clientId
      self.clientSecret = clientSecret
      self.label = label
      self.allowedDomains = allowedDomains
      self.defaultApp = defaultApp
      self.defaultRole = defaultRole
    }
  }

  /// Checks and stores the settings (the secret sealed); with `check`, the provider's discovery
  /// document must be reachable and name the same issuer. Returns the stored record.
  public func configure(_ setup: Setup, check: Bool, by actor: String) async throws -> SingleSignOnRecord {
    var problems: [String] = []
    let issuer = setup.issuer.trimmingCharacters(in: .whitespacesAndNewlines)
    if let problem = SingleSignOnSettings.issuerProblem(issuer) { problems.append(problem) }
    let clientId = setup.clientId.trimmingCharacters(in: .whitespacesAndNewlines)
    if clientId.isEmpty { problems.append("the client id is empty") }
    let secret = setup.clientSecret.trimmingCharacters(in: .whitespacesAndNewlines)
    if secret.isEmpty { problems.append("the client secret file is empty") }
    let domains = setup.allowedDomains.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter {
      !$0.isEmpty
    }
    for domain in domains where domain.contains("@") || !domain.contains(".") || domain.contains(" ") {
      problems.append("\(domain) is not a domain (write example.com)")
    }
    var membership: SingleSignOnSettings.DefaultMembership?
    switch (setup.defaultRole, setup.defaultApp) {
    case (nil, _): break
    case (.some, nil): problems.append("a default role needs --app")
    case (let name?, let appName?):
      if let role = Role(rawValue: name) {
        if role == .owner { problems.append("the default role cannot be owner") }
        if domains.isEmpty { problems.append("a default role needs --allowed-domains (else anyone could join)") }
        if let app = try apps.app(named: appName) {
          membership = .init(appId: app.id, role: role)
        } else {
          problems.append("no app named \(appName)")
        }
      } else {
        problems.append("\(name) is not a role (\(Role.allCases.map(\.rawValue).joined(separator: ", ")))")
      }
    }
    guard problems.isEmpty else { throw DomainError(.invalidConfig, problems.joined(separator: "; ")) }
    guard let secrets else { throw DomainError(.invalidConfig, "no secrets key: the client secret cannot be sealed") }
    if check {
      let found: OpenIDConfiguration
      do { found = try await provider.discover(issuer: issuer) } catch {
        throw DomainError(.invalidConfig, "cannot read the provider's discovery document: \(error)")
      }
      guard found.issuer == issuer else {
        throw DomainError(
          .invalidConfig, "the provider calls itself \(found.issuer); give exactly that as --issuer")
      }
      if let methods = found.codeChallengeMethods, !methods.contains("S256") {
        throw DomainError(.invalidConfig, "the provider does not offer PKCE with S256")
      }
    }
    let record = SingleSignOnRecord(
      settings: SingleSignOnSettings(
        issuer: issuer, clientId: clientId, label: setup.label ?? Self.defaultLabel(issuer), allowedDomains: domains,
        defaultMembership: membership),
      sealedSecret: try secrets.seal(secret), updatedAt: time.now(), updatedBy: actor)
    try store.setSingleSignOn(record)
    cache.withLock { $0 = nil }
    return record
  }

  /// Turns single sign-on off.
  public func remove() throws {
    try store.setSingleSignOn(nil)
    cache.withLock { $0 = nil }
  }

  /// "Google", "Okta", … from the issuer's host, else "SSO".
  static func defaultLabel(_ issuer: String) -> String {
    let host = URL(string: issuer)?.host?.lowercased() ?? ""
    for (part, name) in [("google", "Google"), ("okta", "Okta"), ("microsoftonline", "Microsoft")]
    where host.contains(part) {
      return name
    }
    return "SSO"
  }

  /// Where the browser goes next, and the `state` its cookie must hold when it comes back.
  struct Started: Sendable {
    let location: String
    let state: String
  }

  /// A new sign-in: stores the state's hash, the nonce and the PKCE verifier; returns the
  /// provider's authorization URL.
  func begin(redirectURI: String) async throws(SingleSignOnRefusal) -> Started {
    let record = try settingsOrRefuse()
    let configuration = try await provider(record.settings).configuration
    let state = ConsoleSessions.token()
    let nonce = ConsoleSessions.token()
    let verifier = ProofKey.verifier()
    do {
      try store.addSignOnRequest(
        SignOnRequestRecord(
          stateHash: Digest.sha256Hex(state), nonce: nonce, codeVerifier: verifier, redirectURI: redirectURI,
          createdAt: time.now()))
    } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "cannot store the sign-in: \(error)")
    }
    guard var components = URLComponents(string: configuration.authorizationEndpoint) else {
      throw SingleSignOnRefusal(.providerUnavailable, "the authorization endpoint is not a URL")
    }
    components.queryItems =
      (components.queryItems ?? []) + [
        URLQueryItem(name: "response_type", value: "code"),
        URLQueryItem(name: "client_id", value: record.settings.clientId),
        URLQueryItem(name: "redirect_uri", value: redirectURI),
        URLQueryItem(name: "scope", value: "openid email profile"),
        URLQueryItem(name: "state", value: state),
        URLQueryItem(name: "nonce", value: nonce),
        URLQueryItem(name: "code_challenge", value: ProofKey.challenge(verifier)),
        URLQueryItem(name: "code_challenge_method", value: "S256"),
      ]
    guard let location = components.url?.absoluteString else {
      throw SingleSignOnRefusal(.providerUnavailable, "cannot build the authorization URL")
    }
    return Started(location: location, state: state)
  }

  /// What the provider sent the browser back with.
  struct Callback: Sendable {
    var code: String?
    var state: String?
    /// The provider's `error` (the person cancelled, the provider refused).
    var error: String?
    /// The state cookie the browser holds.
    var cookie: String?
    /// The browser's address.
    var address: String
  }

  /// Finishes a sign-in: the session it opens, or why not.
  func finish(_ callback: Callback) async throws(SingleSignOnRefusal) -> ConsoleSessions.Opened {
    guard let state = callback.state, !state.isEmpty, state.utf8.count <= 128 else {
      throw SingleSignOnRefusal(.expired, "the provider sent no state")
    }
    // The state must come back to the browser that began: a link carrying someone else's code
    // and state (login CSRF) finds no matching cookie.
    guard let cookie = callback.cookie, Authenticator.same(cookie, state) else {
      throw SingleSignOnRefusal(.expired, "the state does not match this browser's sign-in cookie")
    }
    let request: SignOnRequestRecord?
    do { request = try store.takeSignOnRequest(stateHash: Digest.sha256Hex(state)) } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "cannot read the sign-in: \(error)")
    }
    let now = time.now()
    guard let request, now.timeIntervalSince(request.createdAt) <= Self.requestLifetime else {
      throw SingleSignOnRefusal(.expired, "the sign-in is unknown, finished already, or older than ten minutes")
    }
    if let error = callback.error {
      throw SingleSignOnRefusal(
        error == "access_denied" ? .cancelled : .providerUnavailable, "the provider answered error=\(error)")
    }
    guard let code = callback.code, !code.isEmpty else {
      throw SingleSignOnRefusal(.providerUnavailable, "the provider sent neither a code nor an error")
    }
    let record = try settingsOrRefuse()
    let settings = record.settings
    guard let secret = try? secrets?.open(record.sealedSecret) else {
      throw SingleSignOnRefusal(.notConfigured, "the client secret cannot be unsealed with this secrets key")
    }
    let current = try await provider(settings)
    let token: String
    do {
      token = try await provider.redeem(
        CodeRedemption(
          code: code, redirectURI: request.redirectURI, verifier: request.codeVerifier, clientId: settings.clientId,
          clientSecret: secret),
        at: current.configuration)
    } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "redeeming the code failed: \(error)")
    }
    let claims = try await verify(token, settings: settings, keys: current.keys, nonce: request.nonce, now: now)
    return try signIn(claims, settings: settings, address: callback.address, now: now)
  }

  private func verify(
    _ token: String, settings: SingleSignOnSettings, keys: [JSONWebKey], nonce: String, now: Date
  ) async throws(SingleSignOnRefusal) -> IDTokenClaims {
    var keys = keys
    for attempt in 0..<2 {
      let failure: IDTokenFailure
      do throws(IDTokenFailure) {
        return try IDTokenCheck.verify(
          token, keys: keys, issuer: settings.issuer, clientId: settings.clientId, nonce: nonce, now: now)
      } catch {
        failure = error
      }
      switch failure {
      case .unknownKey(let kid):
        // Providers rotate keys: fetch the set again, once, and not more than once a minute.
        guard attempt == 0, let fresh = try await refetchKeys(settings) else {
          throw SingleSignOnRefusal(.tokenInvalid, "the ID token names key \(kid), which the provider does not publish")
        }
        keys = fresh
      case .invalid(let reason):
        throw SingleSignOnRefusal(.tokenInvalid, reason)
      }
    }
    throw SingleSignOnRefusal(.tokenInvalid, "the ID token's key is unknown")
  }

  private func signIn(_ claims: IDTokenClaims, settings: SingleSignOnSettings, address: String, now: Date)
    throws(SingleSignOnRefusal) -> ConsoleSessions.Opened
  {
    do {
      let email = PeopleService.normalized(email: claims.email ?? "")
      let linked = try store.person(issuer: settings.issuer, subject: claims.sub)
      let byEmail = email.isEmpty ? nil : try store.person(email: email)
      let invitations = email.isEmpty ? [] : try store.openInvitations(email: email, now: now)
      let match = try SignOnMatch.decide(
        claims: claims, settings: settings, linked: linked.map { ($0.id, $0.disabledAt != nil) },
        byEmail: byEmail.map { ($0.id, $0.disabledAt != nil) }, invitations: invitations.count)
      var personId: Int64?
      var membership: SingleSignOnSettings.DefaultMembership?
      switch match {
      case .existing(let id): personId = id
      case .invited: break
      case .defaultRole(let given): membership = given
      }
      let name = claims.name.map { String($0.prefix(PeopleService.maxNameLength)) }
      let person = try store.recordSignOn(
        SignOnWrite(
          personId: personId, email: email, name: name, issuer: settings.issuer, subject: claims.sub,
          invitations: invitations.map(\.tokenHash), membership: membership, at: now))
      for invitation in invitations {
        try audit(
          invitation.appId, person.email, "person.joined",
          ["email": person.email, "role": invitation.role.rawValue, "via": "sso"])
      }
      if let membership {
        try audit(
          membership.appId, person.email, "person.joined",
          ["email": person.email, "role": membership.role.rawValue, "via": "sso default role"])
      }
      guard let sessions else { throw SingleSignOnRefusal(.notConfigured, "no console sessions here") }
      return try sessions.open(person: person, address: address, method: "sso")
    } catch let refusal as SingleSignOnRefusal {
      throw refusal
    } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "cannot record the sign-in: \(error)")
    }
  }

  private func audit(_ appId: Int64, _ actor: String, _ action: String, _ detail: [String: String]) throws {
    let text = String(
      decoding: try JSONSerialization.data(withJSONObject: detail, options: [.sortedKeys]), as: UTF8.self)
    try apps.audit(appId: appId, AuditRecord(at: time.now(), actor: actor, action: action, detail: text))
  }

  private func settingsOrRefuse() throws(SingleSignOnRefusal) -> SingleSignOnRecord {
    let record: SingleSignOnRecord?
    do { record = try store.singleSignOn() } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "cannot read the settings: \(error)")
    }
    guard let record else { throw SingleSignOnRefusal(.notConfigured, "single sign-on is not set up") }
    return record
  }

  /// The provider's discovery document and keys, from the cache while fresh.
  private func provider(_ settings: SingleSignOnSettings) async throws(SingleSignOnRefusal) -> (
    configuration: OpenIDConfiguration, keys: [JSONWebKey]
  ) {
    let now = time.now()
    if let cached = cache.withLock({ $0 }), cached.issuer == settings.issuer,
      now.timeIntervalSince(cached.fetchedAt) < Self.cacheLifetime
    {
      return (cached.configuration, cached.keys)
    }
    do {
      let configuration = try await provider.discover(issuer: settings.issuer)
      guard configuration.issuer == settings.issuer else {
        throw SingleSignOnRefusal(
          .providerUnavailable, "the discovery document names issuer \(configuration.issuer), not \(settings.issuer)")
      }
      let set = try await provider.keySet(configuration.jwksURI)
      for skipped in set.skipped { logger.debug("single sign-on: a key was skipped: \(skipped)") }
      cache.withLock {
        $0 = Cached(
          issuer: settings.issuer, configuration: configuration, keys: set.keys, fetchedAt: now, keysFetchedAt: now)
      }
      return (configuration, set.keys)
    } catch let refusal as SingleSignOnRefusal {
      throw refusal
    } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "\(error)")
    }
  }

  /// The keys fetched again; nil when they were fetched less than a minute ago.
  private func refetchKeys(_ settings: SingleSignOnSettings) async throws(SingleSignOnRefusal) -> [JSONWebKey]? {
    let now = time.now()
    guard let cached = cache.withLock({ $0 }), cached.issuer == settings.issuer,
      now.timeIntervalSince(cached.keysFetchedAt) >= Self.keyRefetchInterval
    else { return nil }
    do {
      let set = try await provider.keySet(cached.configuration.jwksURI)
      cache.withLock {
        $0?.keys = set.keys
        $0?.keysFetchedAt = now
      }
      return set.keys
    } catch {
      throw SingleSignOnRefusal(.providerUnavailable, "\(error)")
    }
  }
}
