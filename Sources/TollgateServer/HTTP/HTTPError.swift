import Foundation
import TollgateAPI

/// An error a handler throws to answer with a status and a JSON error body.
public struct HTTPError: Error, Sendable {
  /// HTTP status.
  public var status: Int
  /// The body's error.
  public var error: APIError
  /// Extra headers (`Retry-After` on 429 and 503).
  public var headers: [(String, String)] = []

  /// Creates an error.
  public init(_ status: Int, _ code: String, _ message: String, details: [APIError.Detail]? = nil) {
    self.status = status
    self.error = APIError(code: code, message: message, details: details)
  }

  /// The response that reports this error.
  public var response: Response {
    var response = Response.json(APIErrorBody(error: error), status: status)
    response.headers += headers
    return response
  }

  /// 400: the body is not valid JSON or not the expected shape.
  public static func malformedJSON(_ detail: String) -> HTTPError {
    HTTPError(400, "malformed_json", "The request body is not valid JSON for this route: \(detail)")
  }

  /// 404 for an id that does not exist.
  public static func notFound(_ code: String, _ message: String) -> HTTPError {
    HTTPError(404, code, message)
  }

  /// 422 with the path of every problem.
  public static func validation(_ details: [APIError.Detail], code: String = "validation_failed")
    -> HTTPError
  {
    let summary = details.prefix(3).map { "\($0.path): \($0.message)" }.joined(separator: "; ")
    return HTTPError(422, code, "\(details.count) problem(s): \(summary)", details: details)
  }
}
