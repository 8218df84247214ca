import Foundation
import TollgateAPI

/// Matches method and path to a handler; `{name}` segments become path parameters.
public struct Router: Sendable {
  /// A handler answers one request or throws `DomainError`.
  public typealias Handler = @Sendable (Request) throws -> Response

  /// One registered route.
  public struct Route: Sendable {
    /// The method, e.g. `GET`.
    public let method: String
    /// The pattern, e.g. `/v1/sdk/profiles/{id}`; also the metrics label.
    public let pattern: String
    let segments: [Substring]
    let handler: Handler
  }

  /// The outcome of matching a request.
  public enum Match: Sendable {
    /// A route matched.
    case route(Route, parameters: RequestFields)
    /// The path exists but not with this method; the allowed methods are listed.
    case methodNotAllowed([String])
    /// No route has this path.
    case notFound
  }

  /// Every route, in registration order.
  public private(set) var routes: [Route] = []

  /// Creates an empty router.
  public init() {}

  /// Registers an SDK route from the table the SDK builds its paths with.
  public mutating func add(_ route: SDKRoute, _ handler: @escaping Handler) {
    add(route.method, route.pattern, handler)
  }

  /// Registers a route.
  public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
    precondition(!routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route")
    routes.append(
      Route(
        method: method, pattern: pattern, segments: Self.split(pattern), handler: handler))
  }

  /// Finds the route for a method and path.
  public func match(method: String, path: String) -> Match {
    let parts = Self.split(path)
    var allowed: [String] = []
    for route in routes {
      guard let parameters = Self.bind(route.segments, to: parts) else { continue }
      if route.method == method || (method == "HEAD" && route.method == "GET") {
        return .route(route, parameters: parameters)
      }
      allowed.append(route.method)
    }
    return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
  }

  private static func split(_ path: String) -> [Substring] {
    path.split(separator: "/", omittingEmptySubsequences: true)
  }

  private static func bind(_ pattern: [Substring], to parts: [Substring]) -> RequestFields? {
    guard pattern.count == parts.count else { return nil }
    // Literal segments first: most routes fail here, before anything is allocated.
    for (expected, actual) in zip(pattern, parts) where !isParameter(expected) && expected != actual {
      return nil
    }
    var parameters = RequestFields()
    for (expected, actual) in zip(pattern, parts) where isParameter(expected) {
      parameters.append(name: expected.utf8.dropFirst().dropLast(), value: actual.utf8)
    }
    return parameters
  }

  private static func isParameter(_ segment: Substring) -> Bool {
    segment.first == "{" && segment.last == "}"
  }
}
