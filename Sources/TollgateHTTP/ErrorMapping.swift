import Foundation
import TollgateAPI
import TollgateSupport

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

/// Turns whatever a handler threw into the client's answer: a `DomainError` as itself, a
/// store that cannot write or cannot be reached as 503 with `Retry-After`, anything else as
/// a logged 500 that tells the client nothing more.
package struct ErrorMapping: Sendable {
  let logger: Logger

  /// Every stored field.
  package init(logger: Logger) {
    self.logger = logger
  }

  func response(for error: any Error, context: String) -> Response {
    switch error {
    case let error as DomainError:
      return error.response
    case let error as any ClientExplainableError where error.clientError != nil:
      logger.error("\(context): \(error.logMessage)")
      return error.clientError!.response
    default:
      logger.error("\(context): \(error)")
      return DomainError(.internalError, "The server failed to answer; the error is logged.").response
    }
  }

  /// Runs a handler body outside the router (a long poll's later answer), mapping its errors.
  package func answer(_ body: () throws -> Response?) -> Response? {
    do {
      return try body()
    } catch {
      return response(for: error, context: "deferred answer")
    }
  }

  /// `answer` for a body that always answers.
  package func answer(_ body: () throws -> Response) -> Response {
    answer { () throws -> Response? in try body() }!
  }
}
