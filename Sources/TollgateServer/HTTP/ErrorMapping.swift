import Foundation
import TollgateAPI

/// The one place errors become HTTP: the code's status, the JSON error body, and
/// `Retry-After` when the error says when to come back.
extension DomainError {
  /// The HTTP status of this error's code.
  public var status: Int { code.status }

  /// The response that reports this error.
  public var response: Response {
    var response = Response.json(APIErrorBody(error: error), status: status)
    if let retryAfter { response.headers.append(("Retry-After", String(retryAfter))) }
    return response
  }
}
