import Foundation
import TollgateAPI

/// Why a request cannot be done, in the API's terms: a code every client can switch on, a
/// message for people and, for validation, the path of every problem. Services and domain
/// code throw it and know nothing of HTTP; the edge (`ErrorMapping`) turns it into a status
/// and a JSON body.
public struct DomainError: Error, Sendable {
  /// What went wrong.
  public var code: APIErrorCode
  /// Explanation for people.
  public var message: String
  /// Every problem found (validation codes only).
  public var details: [APIError.Detail]?
  /// Seconds after which the same request may succeed (rate limits, unavailable storage).
  public var retryAfter: Int?

  /// Creates an error.
  public init(_ code: APIErrorCode, _ message: String, details: [APIError.Detail]? = nil, retryAfter: Int? = nil) {
    self.code = code
    self.message = message
    self.details = details
    self.retryAfter = retryAfter
  }

  /// The error as the wire carries it.
  public var error: APIError { APIError(code: code.rawValue, message: message, details: details) }

  /// The body is not valid JSON or not the expected shape.
  public static func malformedJSON(_ detail: String) -> DomainError {
    DomainError(.malformedJSON, "The request body is not valid JSON for this route: \(detail)")
  }

  /// An id that does not exist.
  public static func notFound(_ code: APIErrorCode, _ message: String) -> DomainError {
    DomainError(code, message)
  }

  /// Every problem with its path.
  public static func validation(_ details: [APIError.Detail], code: APIErrorCode = .validationFailed)
    -> DomainError
  {
    let summary = details.prefix(3).map { "\($0.path): \($0.message)" }.joined(separator: "; ")
    return DomainError(code, "\(details.count) problem(s): \(summary)", details: details)
  }
}

/// An error of a lower layer that says what the client should be told (a store that cannot be
/// reached: 503 and when to retry); nil: an internal error, logged and answered 500.
public protocol ClientExplainableError: Error {
  var clientError: DomainError? { get }
  /// What the log says of it.
  var logMessage: String { get }
}
