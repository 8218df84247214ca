/// The body of every error response: `{"error":{"code":"…","message":"…"}}`.
public struct APIErrorBody: Codable, Sendable, Hashable {
  /// The error itself.
  public var error: APIError

  /// Wraps an error.
  public init(error: APIError) { self.error = error }
}

/// A machine-readable code, a human-readable message and, for validation errors, the
/// JSON path of every problem.
public struct APIError: Codable, Sendable, Hashable, Error {
  /// One problem at one place of the request body.
  public struct Detail: Codable, Sendable, Hashable {
    /// JSON path of the offending value, such as `$.placements[0].targets[1].audience`.
    public var path: String
    /// What is wrong there.
    public var message: String

    /// Creates a detail.
    public init(path: String, message: String) {
      self.path = path
      self.message = message
    }
  }

  /// Stable code such as `profile_not_found`; clients switch on it.
  public var code: String
  /// Explanation for people.
  public var message: String
  /// Every problem found, for `422` responses.
  public var details: [Detail]?

  /// The code as the enum of known codes; nil for a code this build does not know (a newer
  /// server's), which clients treat by its HTTP status.
  public var knownCode: APIErrorCode? { APIErrorCode(rawValue: code) }

  /// Creates an error.
  public init(code: String, message: String, details: [Detail]? = nil) {
    self.code = code
    self.message = message
    self.details = details
  }
}
