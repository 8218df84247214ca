import Foundation
import TollgateSupport

/// Times every answer and counts it by route pattern, method and status (`/metrics`); a
/// long poll is counted when it is finally answered.
package struct MetricsMiddleware: Middleware {
  let metrics: Metrics
  let logger: Logger

  /// Every stored field.
  package init(metrics: Metrics, logger: Logger) {
    self.metrics = metrics
    self.logger = logger
  }

  package func respond(to request: Request, next: (Request) -> Response) -> Response {
    let started = ContinuousClock.now
    let response = next(request)
    let route = response.route ?? "unmatched"
    guard let deferred = response.deferred else {
      // Answered now: no closure (and no copy of the request) to keep for later.
      Self.record(response.status, route, request.method, request.path, since: started, metrics, logger)
      return response
    }
    let (metrics, logger, method, path) = (metrics, logger, request.method, request.path)
    deferred.onComplete { answered in
      Self.record(answered.status, route, method, path, since: started, metrics, logger)
    }
    return response
  }

  private static func record(
    _ status: Int, _ route: String, _ method: String, _ path: String, since started: ContinuousClock.Instant,
    _ metrics: Metrics, _ logger: Logger
  ) {
    let elapsed = started.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    metrics.record(route: route, method: method, status: status, seconds: seconds)
    logger.debug("\(method) \(path) → \(status)")
  }
}
