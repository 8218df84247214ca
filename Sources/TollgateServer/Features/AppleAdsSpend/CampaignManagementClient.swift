import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// An OAuth access token and when it stops working.
public struct AdsAccessToken: Sendable, Hashable {
  public var token: String
  public var expiresAt: Date
}

/// Apple Ads' Campaign Management API as the importer uses it; the real client talks to
/// Apple, tests and the demo point it at the stand-in.
public protocol CampaignManagementAPI: Sendable {
  /// Exchanges a client secret for an access token (`grant_type=client_credentials`, `scope=searchadsorg`).
  func accessToken(clientId: String, clientSecret: String, now: Date) async throws(AppleAdsAPIError) -> AdsAccessToken

  /// `POST reports/…` for `orgId`: the raw body of one page.
  func report(path: String, orgId: Int64, accessToken: String, body: ReportingRequestBody)
    async throws(AppleAdsAPIError) -> Data
}

/// The Campaign Management API over HTTPS (v5), and Apple's OAuth token endpoint.
public struct CampaignManagementClient: CampaignManagementAPI {
  /// Apple's API.
  public static let appleAPIURL = URL(string: "https://api.searchads.apple.com/api/v5/")!
  /// Apple's identity service (the token endpoint is `auth/oauth2/token` under it).
  public static let appleIDURL = URL(string: "https://appleid.apple.com/")!

  let apiURL: URL
  let tokenURL: URL
  let session: URLSession

  /// A client of `apiURL`, getting tokens from `idURL`.
  public init(apiURL: URL = appleAPIURL, idURL: URL = appleIDURL, timeout: TimeInterval = 30) {
    self.apiURL = apiURL
    self.tokenURL = idURL.appendingPathComponent("auth/oauth2/token")
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  public func accessToken(clientId: String, clientSecret: String, now: Date) async throws(AppleAdsAPIError)
    -> AdsAccessToken
  {
    var request = URLRequest(url: tokenURL)
    request.httpMethod = "POST"
    request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(
      Self.form([
        ("grant_type", "client_credentials"), ("client_id", clientId), ("client_secret", clientSecret),
        ("scope", "searchadsorg"),
      ]).utf8)
    let (status, headers, data) = try await send(request)
    struct Answer: Decodable {
      var access_token: String
      var expires_in: Double?
    }
    switch status {
    case 200:
      guard let answer = try? JSONDecoder().decode(Answer.self, from: data), !answer.access_token.isEmpty else {
        throw .unexpected("the token endpoint's answer has no access_token")
      }
      return AdsAccessToken(token: answer.access_token, expiresAt: now.addingTimeInterval(answer.expires_in ?? 3_600))
    case 400, 401, 403:
      throw .credentials("Apple's token endpoint refused the credentials (\(status) \(Self.oauthError(data)))")
    default: throw Self.failure(status: status, headers: headers, data: data, what: "the token endpoint")
    }
  }

  public func report(path: String, orgId: Int64, accessToken: String, body: ReportingRequestBody)
    async throws(AppleAdsAPIError) -> Data
  {
    var request = URLRequest(url: apiURL.appendingPathComponent(path))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(accessToken)", forHTTPHeaderField: "Authorization")
    request.setValue("orgId=\(orgId)", forHTTPHeaderField: "X-AP-Context")
    request.httpBody = try? JSONEncoder().encode(body)
    let (status, headers, data) = try await send(request)
    switch status {
    case 200: return data
    case 401: throw .unauthorized("Apple answered 401 to \(path): \(Self.apiMessages(data))")
    case 403:
      throw .credentials(
        "Apple answered 403 to \(path) (does the API user reach org \(orgId)?): \(Self.apiMessages(data))")
    case 400, 404: throw .rejected("Apple answered \(status) to \(path): \(Self.apiMessages(data))")
    default: throw Self.failure(status: status, headers: headers, data: data, what: path)
    }
  }

  private func send(_ request: URLRequest) async throws(AppleAdsAPIError) -> (Int, [String: String], Data) {
    do {
      let (data, response) = try await session.dataRetryingClosedConnection(for: request)
      guard let http = response as? HTTPURLResponse else { throw AppleAdsAPIError.unavailable("no HTTP answer") }
      var headers: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
      }
      return (http.statusCode, headers, data)
    } catch let error as AppleAdsAPIError {
      throw error
    } catch {
      throw .unavailable("transport: \(error.localizedDescription)")
    }
  }

  static func failure(status: Int, headers: [String: String], data: Data, what: String) -> AppleAdsAPIError {
    if status == 429 {
      let wait = headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
      return .rateLimited(retryAfter: wait, "Apple answered 429 to \(what): \(apiMessages(data))")
    }
    return .unavailable("Apple answered \(status) to \(what): \(apiMessages(data))")
  }

  /// `application/x-www-form-urlencoded`.
  static func form(_ fields: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return fields.map { name, value in
      "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
    }.joined(separator: "&")
  }

  /// `{"error": "invalid_client"}` → `invalid_client`.
  static func oauthError(_ data: Data) -> String {
    struct Body: Decodable { var error: String }
    return (try? JSONDecoder().decode(Body.self, from: data))?.error
      ?? String(decoding: data.prefix(200), as: UTF8.self)
  }

  /// Apple's `{"error": {"errors": [{messageCode, message, field}]}}` as one line.
  static func apiMessages(_ data: Data) -> String {
    struct Body: Decodable {
      struct Inner: Decodable {
        struct Item: Decodable {
          var messageCode: String?
          var message: String?
          var field: String?
        }
        var errors: [Item]
      }
      var error: Inner
    }
    guard let body = try? JSONDecoder().decode(Body.self, from: data), !body.error.errors.isEmpty else {
      return data.isEmpty ? "no body" : String(decoding: data.prefix(200), as: UTF8.self)
    }
    return body.error.errors.map { item in
      [item.messageCode, item.message, item.field.flatMap { $0.isEmpty ? nil : "field \($0)" }].compactMap { $0 }
        .joined(separator: ": ")
    }.joined(separator: "; ")
  }
}
