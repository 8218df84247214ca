/// Where the admin action being handled comes from: the client's address and, for a person, the
/// console session. The route wrapper binds it around a handler (a task-local value, inherited by
/// the tasks the handler starts), so every audit entry written meanwhile says where it came from
/// without each service passing it along.
public struct RequestOrigin: Sendable, Equatable {
  /// The client's address (the one a trusted proxy forwarded).
  public var address: String
  /// The console session's public label (`ses_` and 12 hex digits of its id's hash); nil for a key.
  public var session: String?

  /// An origin.
  public init(address: String, session: String?) {
    self.address = address
    self.session = session
  }

  /// The origin of the request being handled, if any (the command line has none).
  @TaskLocal public static var current: RequestOrigin?
}
