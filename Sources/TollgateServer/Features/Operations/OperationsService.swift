import Foundation
import TollgateAPI

/// What operators and their monitoring read: whether the database answers, and the figures
/// of the workers, the queue, the profile cache and the assignment writer.
final class OperationsService: Sendable {
  let store: any Store
  let attribution: AttributionWorker
  let intake: AttributionIntake
  let webhooks: WebhookWorker
  let logger: Logger

  init(
    store: any Store, attribution: AttributionWorker, intake: AttributionIntake, webhooks: WebhookWorker,
    logger: Logger
  ) {
    self.store = store
    self.attribution = attribution
    self.intake = intake
    self.webhooks = webhooks
    self.logger = logger
  }

  /// nil when the database answers, else why not (logged).
  func databaseProblem() -> String? {
    do {
      _ = try store.revisions()
      return nil
    } catch {
      logger.error("health check: \(error)")
      return "\(error)"
    }
  }

  /// Prometheus text: `http` (the request metrics) followed by this server's other figures;
  /// `longPolls` is the number of requests suspended now.
  func metricsText(http: String, longPolls: Int) -> String {
    var text = http
    text += "# HELP tollgate_attribution_outcomes_total Apple Ads resolutions by outcome.\n"
    text += "# TYPE tollgate_attribution_outcomes_total counter\n"
    for (outcome, count) in attribution.outcomeCounts.sorted(by: { $0.key < $1.key }) {
      text += "tollgate_attribution_outcomes_total{outcome=\"\(outcome)\"} \(count)\n"
    }
    text += "# HELP tollgate_attribution_queue_depth Tokens waiting for Apple.\n"
    text += "# TYPE tollgate_attribution_queue_depth gauge\n"
    text += "tollgate_attribution_queue_depth \((try? store.attributionQueueDepth()) ?? -1)\n"
    let intake = intake.figures
    text += "# HELP tollgate_attribution_intake_batches_total Transactions that stored received tokens.\n"
    text += "# TYPE tollgate_attribution_intake_batches_total counter\n"
    text += "tollgate_attribution_intake_batches_total \(intake.batches)\n"
    text += "# HELP tollgate_attribution_intake_tokens_total Tokens stored by those transactions.\n"
    text += "# TYPE tollgate_attribution_intake_tokens_total counter\n"
    text += "tollgate_attribution_intake_tokens_total \(intake.tokens)\n"
    text += "# HELP tollgate_long_polls_waiting Requests suspended until attribution or their timeout.\n"
    text += "# TYPE tollgate_long_polls_waiting gauge\n"
    text += "tollgate_long_polls_waiting \(longPolls)\n"
    text += "# HELP tollgate_webhook_attempts_total Webhook delivery attempts by outcome.\n"
    text += "# TYPE tollgate_webhook_attempts_total counter\n"
    for (outcome, count) in webhooks.outcomeCounts.sorted(by: { $0.key < $1.key }) {
      text += "tollgate_webhook_attempts_total{outcome=\"\(outcome)\"} \(count)\n"
    }
    if let cache = store.profileCache {
      let figures = cache.figures
      text += "# HELP tollgate_profile_cache_capacity Profiles the cache may hold.\n"
      text += "# TYPE tollgate_profile_cache_capacity gauge\ntollgate_profile_cache_capacity \(cache.capacity)\n"
      text += "# HELP tollgate_profile_cache_entries Profiles held in memory.\n"
      text += "# TYPE tollgate_profile_cache_entries gauge\ntollgate_profile_cache_entries \(figures.entries)\n"
      text += "# TYPE tollgate_profile_cache_hits_total counter\ntollgate_profile_cache_hits_total \(figures.hits)\n"
      text +=
        "# TYPE tollgate_profile_cache_misses_total counter\ntollgate_profile_cache_misses_total \(figures.misses)\n"
      text += "# TYPE tollgate_profile_cache_evictions_total counter\n"
      text += "tollgate_profile_cache_evictions_total \(figures.evictions)\n"
      text +=
        "# HELP tollgate_profile_cache_bypass 1 while other instances' changes cannot be heard (reads skip the cache).\n"
      text += "# TYPE tollgate_profile_cache_bypass gauge\ntollgate_profile_cache_bypass \(figures.bypass ? 1 : 0)\n"
      text += "# HELP tollgate_profile_cache_outages_total Times the cache started bypassing.\n"
      text += "# TYPE tollgate_profile_cache_outages_total counter\n"
      text += "tollgate_profile_cache_outages_total \(figures.outages)\n"
      text += "# HELP tollgate_profile_cache_warming 1 while profiles are read into the cache at start.\n"
      text += "# TYPE tollgate_profile_cache_warming gauge\ntollgate_profile_cache_warming \(cache.warming ? 1 : 0)\n"
    }
    if let writes = store.assignmentWrites {
      text += "# HELP tollgate_assignment_writes_pending First-time A/B assignments waiting for their batch write.\n"
      text +=
        "# TYPE tollgate_assignment_writes_pending gauge\ntollgate_assignment_writes_pending \(writes.pending)\n"
      text += "# TYPE tollgate_assignment_writes_total counter\ntollgate_assignment_writes_total \(writes.written)\n"
      text +=
        "# HELP tollgate_assignment_writes_dropped_total Assignments dropped after the database refused them too long (recomputed on the next request).\n"
      text += "# TYPE tollgate_assignment_writes_dropped_total counter\n"
      text += "tollgate_assignment_writes_dropped_total \(writes.dropped)\n"
    }
    return text
  }
}
