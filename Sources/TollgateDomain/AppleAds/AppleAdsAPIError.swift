import Foundation
import TollgateSupport

/// What went wrong talking to the Campaign Management API, by what the importer does about it.
public enum AppleAdsAPIError: Error, Sendable, Hashable, CustomStringConvertible {
  /// 401 on a report: the access token expired or was revoked; get a new one once.
  case unauthorized(String)
  /// The token endpoint refused the client (`invalid_client`, a bad signature) or the API
  /// refused the organization (403): stop until the credentials change.
  case credentials(String)
  /// 429: wait `retryAfter` seconds (Apple's `Retry-After`), or back off when it is absent.
  case rateLimited(retryAfter: TimeInterval?, String)
  /// 5xx, a timeout, no connection: try again later.
  case unavailable(String)
  /// 400/404 on a report: Apple refuses the request itself.
  case rejected(String)
  /// An answer that is not in Apple's format.
  case unexpected(String)

  public var description: String {
    switch self {
    case .unauthorized(let text), .credentials(let text), .unavailable(let text), .rejected(let text),
      .unexpected(let text):
      return text
    case .rateLimited(_, let text): return text
    }
  }
}
