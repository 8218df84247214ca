import COpenSSL
import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgateSupport

/// A local stand-in for an OpenID Connect provider (Google Workspace, Okta, Keycloak …), for
/// tests and demos — never for production. It serves a discovery document, its key set (RS256
/// by default, ES256 on request), an authorization page where anyone types the e-mail they
/// sign in as, and a token endpoint that checks the client's secret, the redirect URI and the
/// PKCE verifier before it signs an ID token. `tamper` makes it sign tokens a relying party
/// must refuse.
public final class OpenIDProviderSandbox: Sendable {
  /// A defect in the next ID tokens, for the tests of what Tollgate refuses.
  public enum Tamper: String, Sendable, CaseIterable {
    /// `aud` is another client.
    case wrongAudience = "wrong-audience"
    /// `iss` is another provider.
    case wrongIssuer = "wrong-issuer"
    /// `nonce` is another sign-in's.
    case wrongNonce = "wrong-nonce"
    /// `exp` passed ten minutes ago.
    case expired
    /// The signature is over other bytes.
    case badSignature = "bad-signature"
    /// Signed by a key the key set does not publish.
    case unknownKey = "unknown-key"
    /// `alg: none`, no signature.
    case unsigned
    /// `email_verified: false`.
    case unverifiedEmail = "unverified-email"
  }

  /// The signing algorithm.
  public enum Algorithm: String, Sendable {
    case rs256 = "RS256"
    case es256 = "ES256"
  }

  private struct Grant {
    var clientId: String
    var redirectURI: String
    var challenge: String
    var nonce: String?
    var email: String
    var name: String?
    var issuedAt: Date
  }

  private let clientId: String
  private let clientSecret: String
  private let algorithm: Algorithm
  private let signer: SigningKey
  private let stranger: SigningKey
  private let clock: @Sendable () -> Date
  private let grants = Mutex<[String: Grant]>([:])
  private let tampering = Mutex<Tamper?>(nil)
  private let issuerURL = Mutex<String>("")
  private let tokensIssued = Mutex(0)
  private let listener = StandInListener()

  /// A provider that knows one client.
  public init(
    clientId: String, clientSecret: String, algorithm: Algorithm = .rs256,
    clock: @escaping @Sendable () -> Date = { Date() }
  ) throws {
    self.clientId = clientId
    self.clientSecret = clientSecret
    self.algorithm = algorithm
    self.clock = clock
    signer = try SigningKey(algorithm, kid: "stand-in-1")
    stranger = try SigningKey(algorithm, kid: "stand-in-1")
  }

  /// Listens on `host:port` (0 picks a port); returns the issuer URL to give `tollgate sso set`.
  public func start(host: String = "127.0.0.1", port: UInt16 = 0) throws -> String {
    let bound = try listener.start(host: host, port: port) { [self] request in answer(request) }
    let issuer = "http://\(host):\(bound)"
    issuerURL.withLock { $0 = issuer }
    return issuer
  }

  /// Stops listening.
  public func stop() { listener.stop() }

  /// Makes the next ID tokens defective (nil: correct again).
  public func tamper(_ tamper: Tamper?) { tampering.withLock { $0 = tamper } }

  /// How many ID tokens the token endpoint signed.
  public var issued: Int { tokensIssued.withLock { $0 } }

  /// Answers one request.
  public func answer(_ request: Request) -> Response {
    let issuer = issuerURL.withLock { $0 }
    switch (request.method, request.path) {
    case ("GET", "/.well-known/openid-configuration"):
      return json([
        "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
        "jwks_uri": issuer + "/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": [algorithm.rawValue],
        "scopes_supported": ["openid", "email", "profile"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "code_challenge_methods_supported": ["S256"],
      ])
    case ("GET", "/jwks"):
      return json(["keys": [signer.publicJWK]])
    case ("GET", "/authorize"):
      return authorizePage(request)
    case ("POST", "/authorize"):
      return authorize(Self.form(request.body))
    case ("POST", "/token"):
      return token(request)
    default:
      return Response(status: 404, body: Data("not found".utf8))
    }
  }

  /// The page a person signs in on: the e-mail they are, nothing else checked.
  private func authorizePage(_ request: Request) -> Response {
    let query = request.query
    guard query["client_id"] == clientId else { return text(400, "unknown client_id") }
    guard query["response_type"] == "code" else { return text(400, "response_type must be code") }
    guard let redirect = query["redirect_uri"], URL(string: redirect)?.scheme != nil else {
      return text(400, "redirect_uri is missing")
    }
    guard query["code_challenge_method"] == "S256", let challenge = query["code_challenge"], !challenge.isEmpty else {
      return text(400, "PKCE with S256 is required")
    }
    guard query["scope"]?.split(separator: " ").contains("openid") == true else {
      return text(400, "scope lacks openid")
    }
    let hidden = [
      ("redirect_uri", redirect), ("state", query["state"] ?? ""), ("nonce", query["nonce"] ?? ""),
      ("code_challenge", challenge),
    ].map { #"<input type="hidden" name="\#($0.0)" value="\#(Self.escape($0.1))">"# }.joined()
    let page = """
      <!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
      <title>Stand-in identity provider</title><link rel="icon" href="data:,">
      <style>body{font:16px system-ui;max-width:24rem;margin:4rem auto;padding:0 1rem}input,button{font:inherit;
      padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0}</style></head><body>
      <h1>Stand-in identity provider</h1><p>For tests only: sign in as anyone.</p>
      <form method="post" action="/authorize">\(hidden)
      <label>E-mail <input id="email" name="email" type="email" required></label>
      <label>Name <input id="name" name="name"></label>
      <button id="approve" name="decision" value="approve">Sign in</button>
      <button id="deny" name="decision" value="deny" formnovalidate>Cancel</button></form></body></html>
      """
    return Response(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Data(page.utf8))
  }

  private func authorize(_ form: [String: String]) -> Response {
    guard let redirect = form["redirect_uri"], var components = URLComponents(string: redirect) else {
      return text(400, "redirect_uri is missing")
    }
    var items = components.queryItems ?? []
    if form["decision"] == "deny" {
      items.append(URLQueryItem(name: "error", value: "access_denied"))
    } else {
      guard let email = form["email"], email.contains("@"), let challenge = form["code_challenge"] else {
        return text(400, "email is missing")
      }
      let code = Base64URL.encode(Data(Digest.randomBytes(24)))
      grants.withLock {
        $0[code] = Grant(
          clientId: clientId, redirectURI: redirect, challenge: challenge,
          nonce: form["nonce"].flatMap { $0.isEmpty ? nil : $0 },
          email: email, name: form["name"].flatMap { $0.isEmpty ? nil : $0 }, issuedAt: clock())
      }
      items.append(URLQueryItem(name: "code", value: code))
    }
    if let state = form["state"], !state.isEmpty { items.append(URLQueryItem(name: "state", value: state)) }
    components.queryItems = items
    return Response(status: 302, headers: [("Location", components.url?.absoluteString ?? redirect)])
  }

  private func token(_ request: Request) -> Response {
    let form = Self.form(request.body)
    var client = (form["client_id"], form["client_secret"])
    if let basic = request.header("authorization"), basic.hasPrefix("Basic "),
      let decoded = Data(base64Encoded: String(basic.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
      let colon = decoded.firstIndex(of: ":")
    {
      client = (
        String(decoded[..<colon]).removingPercentEncoding,
        String(decoded[decoded.index(after: colon)...]).removingPercentEncoding
      )
    }
    guard client.0 == clientId, client.1 == clientSecret else { return oauthError(401, "invalid_client") }
    guard form["grant_type"] == "authorization_code", let code = form["code"] else {
      return oauthError(400, "unsupported_grant_type")
    }
    // A code is redeemed once.
    guard let grant = grants.withLock({ $0.removeValue(forKey: code) }),
      clock().timeIntervalSince(grant.issuedAt) < 600
    else { return oauthError(400, "invalid_grant") }
    guard form["redirect_uri"] == grant.redirectURI else { return oauthError(400, "invalid_grant") }
    guard let verifier = form["code_verifier"], ProofKey.challenge(verifier) == grant.challenge else {
      return oauthError(400, "invalid_grant")
    }
    let issuer = issuerURL.withLock { $0 }
    let tamper = tampering.withLock { $0 }
    let now = clock().timeIntervalSince1970.rounded(.down)
    var claims: [String: Any] = [
      "iss": tamper == .wrongIssuer ? "https://elsewhere.example" : issuer,
      "sub": "user-" + Digest.sha256Hex(grant.email.lowercased()).prefix(16),
      "aud": tamper == .wrongAudience ? "another-client" : grant.clientId,
      "iat": now, "exp": tamper == .expired ? now - 600 : now + 300,
      "email": grant.email, "email_verified": tamper != .unverifiedEmail,
    ]
    if let nonce = grant.nonce { claims["nonce"] = tamper == .wrongNonce ? "not-" + nonce : nonce }
    if let name = grant.name { claims["name"] = name }
    let idToken: String
    do {
      switch tamper {
      case .unsigned: idToken = try Self.unsigned(claims)
      case .unknownKey: idToken = try stranger.sign(claims, kid: "rotated-away")
      case .badSignature: idToken = try signer.sign(claims, corrupt: true)
      default: idToken = try signer.sign(claims)
      }
    } catch {
      return oauthError(500, "server_error")
    }
    tokensIssued.withLock { $0 += 1 }
    return json([
      "access_token": Base64URL.encode(Data(Digest.randomBytes(24))), "token_type": "Bearer", "expires_in": 300,
      "id_token": idToken,
    ])
  }

  private static func unsigned(_ claims: [String: Any]) throws -> String {
    let header = try JSONSerialization.data(withJSONObject: ["alg": "none", "typ": "JWT"], options: [.sortedKeys])
    let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    return Base64URL.encode(header) + "." + Base64URL.encode(payload) + "."
  }

  private func json(_ object: [String: Any], status: Int = 200) -> Response {
    let body = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return Response(
      status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: body)
  }

  private func oauthError(_ status: Int, _ error: String) -> Response { json(["error": error], status: status) }

  private func text(_ status: Int, _ message: String) -> Response {
    Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Data(message.utf8))
  }

  /// An `application/x-www-form-urlencoded` body.
  static func form(_ body: Data) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1).map {
        String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
      }
      fields[parts[0]] = parts.count == 2 ? parts[1] : ""
    }
    return fields
  }

  static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
      .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
  }
}

/// The stand-in's signing key: RSA 2048 (RS256) or P-256 (ES256), with its public JWK.
final class SigningKey: @unchecked Sendable {
  let algorithm: OpenIDProviderSandbox.Algorithm
  let kid: String
  private let pointer: OpaquePointer
  private let ec: ECKey?

  init(_ algorithm: OpenIDProviderSandbox.Algorithm, kid: String) throws {
    self.algorithm = algorithm
    self.kid = kid
    switch algorithm {
    case .rs256:
      guard let key = tg_EVP_RSA_gen(2048) else { throw SigningKeyError("RSA key generation failed") }
      pointer = key
      ec = nil
    case .es256:
      let key = try ECKey.generateP256()
      ec = key
      pointer = key.pointer
      EVP_PKEY_up_ref(pointer)
    }
  }

  deinit { EVP_PKEY_free(pointer) }

  /// The public half as a key set lists it.
  var publicJWK: [String: String] {
    switch algorithm {
    case .rs256:
      return [
        "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": Base64URL.encode(number(tg_param_rsa_n())),
        "e": Base64URL.encode(number(tg_param_rsa_e())),
      ]
    case .es256:
      var point = [UInt8](repeating: 0, count: 65)
      var length = 0
      EVP_PKEY_get_octet_string_param(pointer, tg_param_pub_key(), &point, point.count, &length)
      return [
        "kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256",
        "x": Base64URL.encode(Data(point[1..<33])), "y": Base64URL.encode(Data(point[33..<65])),
      ]
    }
  }

  private func number(_ name: UnsafePointer<CChar>) -> Data {
    var bn: OpaquePointer?
    guard EVP_PKEY_get_bn_param(pointer, name, &bn) == 1, let bn else { return Data() }
    defer { BN_free(bn) }
    var bytes = [UInt8](repeating: 0, count: Int((BN_num_bits(bn) + 7) / 8))
    BN_bn2bin(bn, &bytes)
    return Data(bytes)
  }

  /// A signed JWT of `claims`; `corrupt` flips a bit of the signature.
  func sign(_ claims: [String: Any], kid: String? = nil, corrupt: Bool = false) throws -> String {
    let header = try JSONSerialization.data(
      withJSONObject: ["alg": algorithm.rawValue, "typ": "JWT", "kid": kid ?? self.kid], options: [.sortedKeys])
    let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
    let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
    var signature: Data
    switch algorithm {
    case .es256: signature = try ec!.signES256(Data(input.utf8))
    case .rs256: signature = try rsaSign(Data(input.utf8))
    }
    if corrupt { signature[signature.startIndex] ^= 0x01 }
    return input + "." + Base64URL.encode(signature)
  }

  private func rsaSign(_ message: Data) throws -> Data {
    guard let context = EVP_MD_CTX_new() else { throw SigningKeyError("EVP_MD_CTX_new failed") }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
      throw SigningKeyError("EVP_DigestSignInit failed")
    }
    var length = 0
    let bytes = [UInt8](message)
    guard EVP_DigestSign(context, nil, &length, bytes, bytes.count) == 1 else { throw SigningKeyError("sizing failed") }
    var out = [UInt8](repeating: 0, count: length)
    guard EVP_DigestSign(context, &out, &length, bytes, bytes.count) == 1 else {
      throw SigningKeyError("EVP_DigestSign failed")
    }
    return Data(out[..<length])
  }
}

/// Why the stand-in could not make or use its key.
struct SigningKeyError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
