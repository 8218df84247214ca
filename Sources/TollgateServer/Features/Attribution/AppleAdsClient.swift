import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What Apple answered for a token.
public enum AppleAdsAnswer: Sendable, Hashable {
  /// 200: the payload (`attribution` may be false).
  case payload(AppleAdsPayload)
  /// 404: not ready yet; Apple says retry every 5 s, at most 3 times.
  case notReady
  /// 400: the token is invalid; never retry.
  case invalid(String)
  /// 5xx, a timeout or no connection: retry later.
  case unavailable(String)
}

/// Resolves AdServices tokens; the real client talks to Apple, tests use the stand-in.
public protocol AppleAdsResolving: Sendable {
  /// Asks once; retries are the worker's business.
  func resolve(token: String) async -> AppleAdsAnswer
}

/// Apple's attribution API: `POST` the raw token as `text/plain`.
public struct AppleAdsClient: AppleAdsResolving {
  /// Apple's endpoint.
  public static let appleURL = URL(string: "https://api-adservices.apple.com/api/v1/")!

  let url: URL
  let session: URLSession

  /// A client for `url`; the timeout must exceed the 1 s Apple may hold a 404.
  public init(url: URL = AppleAdsClient.appleURL, timeout: TimeInterval = 5) {
    self.url = url
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  public func resolve(token: String) async -> AppleAdsAnswer {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(token.utf8)
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.dataRetryingClosedConnection(for: request)
    } catch {
      return .unavailable("transport: \(error.localizedDescription)")
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    switch status {
    case 200:
      do {
        return .payload(try JSONDecoder().decode(AppleAdsPayload.self, from: data))
      } catch {
        return .unavailable("undecodable 200 answer: \(error)")
      }
    case 404: return .notReady
    case 400: return .invalid("Apple answered 400: the token is invalid or expired")
    default: return .unavailable("Apple answered \(status)")
    }
  }
}
