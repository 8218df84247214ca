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
      var text = metrics.render()
      text += "# HELP tollgate_attribution_outcomes_total Apple Ads resolutions by outcome.\n"
      text += "# TYPE tollgate_attribution_outcomes_total counter\n"
      for (outcome, count) in attribution.outcomeCounts.sorted(by: { $0.key < $1.key }) {
        text += "tollgate_attribution_outcomes_total{outcome=\"\(outcome)\"} \(count)\n"
      }
      text += "# HELP tollgate_attribution_queue_depth Tokens waiting for Apple.\n"
      text += "# TYPE tollgate_attribution_queue_depth gauge\n"
      text += "tollgate_attribution_queue_depth \((try? store.attributionQueueDepth()) ?? -1)\n"
      text += "# HELP tollgate_long_polls_waiting Requests suspended until attribution or their timeout.\n"
      text += "# TYPE tollgate_long_polls_waiting gauge\n"
      text += "tollgate_long_polls_waiting \(waits.count)\n"
      return Response(
        status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
        body: Data(text.utf8))
    }
  }
}
