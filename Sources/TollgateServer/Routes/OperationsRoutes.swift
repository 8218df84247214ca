import Foundation

extension Endpoints {
  func addOperationsRoutes(to router: inout Router) {
    router.add("GET", "/health") { [self] _ in
      do {
        _ = try store.revisions()
        return .json(["status": "ok", "database": "ok"])
      } catch {
        logger.error("health check: \(error)")
        return .json(["status": "unavailable", "database": "\(error)"], status: 503)
      }
    }
    router.add("GET", "/metrics") { [self] _ in
      Response(
        status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
        body: Data(metrics.render().utf8))
    }
  }
}
