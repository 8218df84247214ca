import Foundation
import TollgateSupport

/// A step around the router: sees every request on its way in and the response on its way
/// out, and may answer by itself (the console's files). Steps are small and each does one
/// thing; `Service` stacks them.
public protocol Middleware: Sendable {
  /// Answers `request`, calling `next` for the rest of the stack when it does not answer.
  func respond(to request: Request, next: (Request) -> Response) -> Response
}

/// A check a matched route must pass before its handler runs (rate limits); it throws the
/// error the client gets.
public protocol RouteGuard: Sendable {
  /// Lets the request through, or throws.
  func admit(_ request: Request, route: String) throws
}

/// The router with its guards and the error mapping: the innermost step of the stack.
package struct RoutingResponder: Sendable {
  let router: Router
  let guards: [any RouteGuard]
  let errors: ErrorMapping

  /// Every stored field.
  package init(router: Router, guards: [any RouteGuard], errors: ErrorMapping) {
    self.router = router
    self.guards = guards
    self.errors = errors
  }

  /// The matched handler's answer, a mapped error, 405 or 404; `route` on the response is the
  /// pattern that answered (the metrics label).
  package func respond(to request: Request) -> Response {
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

extension Array where Element == any Middleware {
  /// Runs the stack, outermost first, ending in `innermost`.
  package func respond(to request: Request, innermost: (Request) -> Response) -> Response {
    respond(to: request, from: startIndex, innermost: innermost)
  }

  /// The stack from `index` inward (no copy of the stack per request).
  private func respond(to request: Request, from index: Int, innermost: (Request) -> Response) -> Response {
    guard index < endIndex else { return innermost(request) }
    return self[index].respond(to: request) { respond(to: $0, from: index + 1, innermost: innermost) }
  }
}
