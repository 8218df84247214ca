import Foundation
import TollgateDomain
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a provider's discovery document says (OpenID Connect Discovery §3), as far as Tollgate
/// uses it.
public struct OpenIDConfiguration: Codable, Sendable, Hashable {
  /// The issuer, which must equal the configured one exactly.
  public var issuer: String
  /// Where the browser goes to sign in.
  public var authorizationEndpoint: String
  /// Where the code is redeemed.
  public var tokenEndpoint: String
  /// The provider's signing keys.
  public var jwksURI: String
  /// How the client authenticates at the token endpoint; absent means `client_secret_basic`.
  public var tokenEndpointAuthMethods: [String]?
  /// PKCE methods; absent for providers that do not say.
  public var codeChallengeMethods: [String]?

  enum CodingKeys: String, CodingKey {
    case issuer
    case authorizationEndpoint = "authorization_endpoint"
    case tokenEndpoint = "token_endpoint"
    case jwksURI = "jwks_uri"
    case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
    case codeChallengeMethods = "code_challenge_methods_supported"
  }

  /// Every field.
  public init(
    issuer: String, authorizationEndpoint: String, tokenEndpoint: String, jwksURI: String,
    tokenEndpointAuthMethods: [String]? = nil, codeChallengeMethods: [String]? = nil
  ) {
    self.issuer = issuer
    self.authorizationEndpoint = authorizationEndpoint
    self.tokenEndpoint = tokenEndpoint
    self.jwksURI = jwksURI
    self.tokenEndpointAuthMethods = tokenEndpointAuthMethods
    self.codeChallengeMethods = codeChallengeMethods
  }
}

/// Why talking to the provider failed (unreachable, an error answer, an unreadable one).
public struct OpenIDProviderError: Error, CustomStringConvertible, Sendable {
  public let description: String
  /// A failure.
  public init(_ description: String) { self.description = description }
}

/// The provider's three endpoints Tollgate calls; the real one speaks HTTP, tests may count or
/// break calls.
public protocol OpenIDProviderClient: Sendable {
  /// `GET {issuer}/.well-known/openid-configuration`.
  func discover(issuer: String) async throws -> OpenIDConfiguration
  /// `GET jwks_uri`.
  func keySet(_ url: String) async throws -> JSONWebKeySetAnswer
  /// `POST token_endpoint` with the code, the PKCE verifier and the client's credentials; the
  /// ID token.
  func redeem(_ redemption: CodeRedemption, at configuration: OpenIDConfiguration) async throws -> String
}

/// A key set as fetched: the keys Tollgate can use and what it skipped (logged).
public struct JSONWebKeySetAnswer: Sendable {
  /// Usable keys.
  let keys: [JSONWebKey]
  /// Why others were skipped.
  let skipped: [String]
}

/// An authorization code to redeem.
public struct CodeRedemption: Sendable {
  /// The code the provider sent back.
  public var code: String
  /// The redirect URI the authorization request named.
  public var redirectURI: String
  /// The PKCE verifier.
  public var verifier: String
  /// The client id.
  public var clientId: String
  /// The client secret.
  public var clientSecret: String
}

/// The provider over HTTP (URLSession), with a short timeout: a person is waiting.
public struct URLSessionOpenIDClient: OpenIDProviderClient {
  let session: URLSession
  /// Answers larger than this are refused (a key set or discovery document is a few kB).
  static let maxBytes = 256 * 1024

  /// A client whose calls give up after `timeout` seconds.
  public init(timeout: TimeInterval = 10) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  public func discover(issuer: String) async throws -> OpenIDConfiguration {
    let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
    let data = try await get(trimmed + "/.well-known/openid-configuration")
    do { return try JSONDecoder().decode(OpenIDConfiguration.self, from: data) } catch {
      throw OpenIDProviderError("the discovery document at \(trimmed)/.well-known/openid-configuration is unreadable")
    }
  }

  public func keySet(_ url: String) async throws -> JSONWebKeySetAnswer {
    let data = try await get(url)
    guard let set = try? JSONDecoder().decode(JSONWebKey.Set.self, from: data) else {
      throw OpenIDProviderError("the key set at \(url) is unreadable")
    }
    var keys: [JSONWebKey] = []
    var skipped: [String] = []
    for fields in set.keys {
      do { keys.append(try JSONWebKey(fields)) } catch { skipped.append("\(error)") }
    }
    return JSONWebKeySetAnswer(keys: keys, skipped: skipped)
  }

  public func redeem(_ redemption: CodeRedemption, at configuration: OpenIDConfiguration) async throws -> String {
    guard let url = URL(string: configuration.tokenEndpoint) else {
      throw OpenIDProviderError("the token endpoint \(configuration.tokenEndpoint) is not a URL")
    }
    var form = [
      ("grant_type", "authorization_code"), ("code", redemption.code), ("redirect_uri", redemption.redirectURI),
      ("code_verifier", redemption.verifier),
    ]
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    let methods = configuration.tokenEndpointAuthMethods ?? ["client_secret_basic"]
    if methods.contains("client_secret_basic") || !methods.contains("client_secret_post") {
      // RFC 6749 §2.3.1: each part form-encoded before base64.
      let credentials = Self.formEncode(redemption.clientId) + ":" + Self.formEncode(redemption.clientSecret)
      request.setValue("Basic " + Data(credentials.utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
    } else {
      form += [("client_id", redemption.clientId), ("client_secret", redemption.clientSecret)]
    }
    request.httpBody = Data(
      form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&").utf8)
    let (data, status) = try await send(request)
    struct TokenAnswer: Decodable {
      var idToken: String?
      var error: String?
      var errorDescription: String?
      enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case error
        case errorDescription = "error_description"
      }
    }
    let answer = try? JSONDecoder().decode(TokenAnswer.self, from: data)
    guard status == 200 else {
      throw OpenIDProviderError(
        "the token endpoint answered \(status)\(answer?.error.map { ": \($0)" } ?? "")\(answer?.errorDescription.map { " (\($0))" } ?? "")"
      )
    }
    guard let token = answer?.idToken else { throw OpenIDProviderError("the token endpoint sent no id_token") }
    return token
  }

  /// `application/x-www-form-urlencoded` for one name or value.
  static func formEncode(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
  }

  private func get(_ address: String) async throws -> Data {
    guard let url = URL(string: address) else { throw OpenIDProviderError("\(address) is not a URL") }
    var request = URLRequest(url: url)
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    let (data, status) = try await send(request)
    guard status == 200 else { throw OpenIDProviderError("\(address) answered \(status)") }
    return data
  }

  private func send(_ request: URLRequest) async throws -> (Data, Int) {
    let data: Data
    let response: URLResponse
    do { (data, response) = try await session.data(for: request) } catch {
      throw OpenIDProviderError(
        "\(request.url?.absoluteString ?? "the provider") is unreachable: \(error.localizedDescription)")
    }
    guard data.count <= Self.maxBytes else {
      throw OpenIDProviderError("\(request.url?.absoluteString ?? "the provider") answered more than 256 KiB")
    }
    return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
  }
}
