import Foundation
import TollgateAPI
import TollgateSupport

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
    /// What the route needs (a permission's name, e.g. `config:write`); nil for routes that
    /// take a public key, a signed body or nothing.
    public let permission: String?
    let segments: [Segment]
    let handler: Handler
  }

  /// One `/`-separated part of a pattern, as bytes: compared byte for byte, no string
  /// comparison (with its Unicode rules) per route tried.
  enum Segment: Sendable {
    case literal([UInt8])
    /// `{name}`.
    case parameter([UInt8])
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
  /// Route indexes by segment count: a path is only tried against routes as long as it.
  private var bySegmentCount: [Int: [Int]] = [:]

  /// Creates an empty router.
  public init() {}

  /// Registers an SDK route from the table the SDK builds its paths with.
  public mutating func add(_ route: SDKRoute, _ handler: @escaping Handler) {
    add(route.method, route.pattern, handler)
  }

  /// Registers a route.
  public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
    add(method, pattern, permission: nil, handler)
  }

  /// Registers a route that needs `permission` (the handler checks it; the table says it).
  public mutating func add(
    _ method: String, _ pattern: String, permission: String?, _ handler: @escaping Handler
  ) {
    precondition(!routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route")
    let segments = pattern.split(separator: "/").map { part -> Segment in
      part.first == "{" && part.last == "}"
        ? .parameter(Array(part.utf8.dropFirst().dropLast())) : .literal(Array(part.utf8))
    }
    bySegmentCount[segments.count, default: []].append(routes.count)
    routes.append(
      Route(method: method, pattern: pattern, permission: permission, segments: segments, handler: handler))
  }

  /// Finds the route for a method and path.
  public func match(method: String, path: String) -> Match {
    var path = path
    return path.withUTF8 { bytes in
      // Where each non-empty segment lies (at most one per two bytes), on the stack for any
      // ordinary path: no allocation per request.
      withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: bytes.count / 2 + 1) { space in
        var count = 0
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
          if index > start {
            space.initializeElement(at: count, to: start..<index)
            count += 1
          }
          start = index + 1
        }
        return match(method: method, parts: UnsafeBufferPointer(rebasing: space[..<count]), bytes)
      }
    }
  }

  private func match(method: String, parts: UnsafeBufferPointer<Range<Int>>, _ bytes: UnsafeBufferPointer<UInt8>)
    -> Match
  {
    var allowed: [String] = []
    for candidate in bySegmentCount[parts.count] ?? [] {
      let route = routes[candidate]
      guard Self.literalsMatch(route.segments, parts, bytes) else { continue }
      if route.method == method || (method == "HEAD" && route.method == "GET") {
        return .route(route, parameters: Self.parameters(route.segments, parts, bytes))
      }
      allowed.append(route.method)
    }
    return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
  }

  private static func literalsMatch(
    _ segments: [Segment], _ parts: UnsafeBufferPointer<Range<Int>>, _ bytes: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    for (segment, part) in zip(segments, parts) {
      guard case .literal(let expected) = segment else { continue }
      guard expected.count == part.count, expected.elementsEqual(bytes[part]) else { return false }
    }
    return true
  }

  private static func parameters(
    _ segments: [Segment], _ parts: UnsafeBufferPointer<Range<Int>>, _ bytes: UnsafeBufferPointer<UInt8>
  ) -> RequestFields {
    var parameters = RequestFields()
    for (segment, part) in zip(segments, parts) {
      if case .parameter(let name) = segment { parameters.append(name: name, value: bytes[part]) }
    }
    return parameters
  }
}

/// A check a matched route must pass before its handler runs (rate limits); it throws the
/// error the client gets.
public protocol RouteGuard: Sendable {
  /// Lets the request through, or throws.
  func admit(_ request: Request, route: String) throws
}

/// The server's whole answer to a request: timed and counted (`Metrics`), then a mounted
/// prefix's handler (the console's files: not API routes, so unguarded) or the router's matched
/// handler behind its guards, with thrown errors mapped.
package struct RoutingResponder: HTTPResponder {
  /// A path prefix answered by one handler: the prefix itself and everything below it.
  package struct Mount: Sendable {
    let prefix: String
    let below: String
    let handler: @Sendable (Request) -> Response

    /// `prefix` (e.g. `/dashboard`) and the paths under it go to `handler`.
    package init(_ prefix: String, _ handler: @escaping @Sendable (Request) -> Response) {
      self.prefix = prefix
      self.below = prefix + "/"
      self.handler = handler
    }
  }

  let router: Router
  let guards: [any RouteGuard]
  let errors: ErrorMapping
  let metrics: Metrics
  let logger: Logger
  let mounts: [Mount]

  /// Every stored field.
  package init(
    router: Router, guards: [any RouteGuard], errors: ErrorMapping, metrics: Metrics, logger: Logger,
    mounts: [Mount] = []
  ) {
    self.router = router
    self.guards = guards
    self.errors = errors
    self.metrics = metrics
    self.logger = logger
    self.mounts = mounts
  }

  /// The answer; `route` on it is the pattern (or mount) that answered, the metrics label.
  package func respond(to request: Request) -> Response {
    metrics.measure(request, logger: logger) { request in
      for mount in mounts where request.path == mount.prefix || request.path.hasPrefix(mount.below) {
        var response = mount.handler(request)
        response.route = mount.prefix
        return response
      }
      return routed(request)
    }
  }

  /// The matched handler's answer, a mapped error, 405 or 404.
  private func routed(_ request: Request) -> Response {
    switch router.match(method: request.method, path: request.path) {
    case .route(let route, let parameters):
      var request = request
      request.pathParameters = parameters
      var response: Response
      do {
        for check in guards { try check.admit(request, route: route.pattern) }
        response = try route.handler(request)
      } catch {
        response = errors.response(for: error, context: "\(request.method) \(request.path)")
      }
      response.route = route.pattern
      return response
    case .methodNotAllowed(let allowed):
      var error = DomainError(.methodNotAllowed, "\(request.method) is not allowed here.").response
      error.headers.append(("Allow", allowed.joined(separator: ", ")))
      return error
    case .notFound:
      return DomainError(.routeNotFound, "No route \(request.method) \(request.path).").response
    }
  }
}
