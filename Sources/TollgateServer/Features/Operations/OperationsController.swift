import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /health` (200 when the database answers, else 503) and `GET /metrics` (Prometheus text).
/// Neither needs a key, and neither is rate-limited.
struct OperationsController: Sendable {
  let operations: OperationsService
  let metrics: Metrics
  let waits: ProfileWaits

  func register(on router: inout Router) {
    router.add("GET", "/health") { _ in
      guard let problem = operations.databaseProblem() else {
        return .json(["status": "ok", "database": "ok"])
      }
      return .json(["status": "unavailable", "database": problem], status: 503)
    }

    router.add("GET", "/metrics") { _ in
      Response(
        status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
        body: Data(operations.metricsText(http: metrics.render(), longPolls: waits.count).utf8))
    }
  }
}
