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
    let metrics = metrics
    let logger = logger
    let route = response.route ?? "unmatched"
    let record: @Sendable (Response) -> Void = { answered in
      let elapsed = started.duration(to: .now)
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      metrics.record(route: route, method: request.method, status: answered.status, seconds: seconds)
      logger.debug("\(request.method) \(request.path) → \(answered.status)")
    }
    if let deferred = response.deferred {
      deferred.onComplete(record)
    } else {
      record(response)
    }
    return response
  }
}
