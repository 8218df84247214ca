import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// What operators and their monitoring read: whether the database answers, and the figures
/// of the workers, the queue, the profile cache and the assignment writer.
final class OperationsService: Sendable {
  let apps: any AppRepository
  let attributionJobs: any AttributionJobRepository
  /// The profile cache, when there is one (its figures and the batched assignment writes').
  let cache: CachedStore?
  let attribution: AttributionWorker
  let intake: AttributionIntake
  let webhooks: WebhookWorker
  let logger: Logger

  init(
    apps: any AppRepository, attributionJobs: any AttributionJobRepository, cache: CachedStore?,
    attribution: AttributionWorker, intake: AttributionIntake, webhooks: WebhookWorker, logger: Logger
  ) {
    self.apps = apps
    self.attributionJobs = attributionJobs
    self.cache = cache
    self.attribution = attribution
    self.intake = intake
    self.webhooks = webhooks
    self.logger = logger
  }

  /// nil when the database answers, else why not (logged).
  func databaseProblem() -> String? {
    do {
      _ = try apps.revisions()
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
    text += Self.metric(
      "tollgate_attribution_queue_depth", "gauge", "Tokens waiting for Apple.",
      (try? attributionJobs.attributionQueueDepth()) ?? -1)
    let intake = intake.figures
    text += Self.metric(
      "tollgate_attribution_intake_batches_total", "counter",
      "Transactions that stored received tokens.", intake.batches)
    text += Self.metric(
      "tollgate_attribution_intake_tokens_total", "counter",
      "Tokens stored by those transactions.", intake.tokens)
    text += Self.metric(
      "tollgate_long_polls_waiting", "gauge",
      "Requests suspended until attribution or their timeout.", longPolls)
    text += "# HELP tollgate_webhook_attempts_total Webhook delivery attempts by outcome.\n"
    text += "# TYPE tollgate_webhook_attempts_total counter\n"
    for (outcome, count) in webhooks.outcomeCounts.sorted(by: { $0.key < $1.key }) {
      text += "tollgate_webhook_attempts_total{outcome=\"\(outcome)\"} \(count)\n"
    }
    if let cache = cache?.profileCache {
      let figures = cache.figures
      text += Self.metric("tollgate_profile_cache_capacity", "gauge", "Profiles the cache may hold.", cache.capacity)
      text += Self.metric("tollgate_profile_cache_entries", "gauge", "Profiles held in memory.", figures.entries)
      text += Self.metric("tollgate_profile_cache_hits_total", "counter", nil, figures.hits)
      text += Self.metric("tollgate_profile_cache_misses_total", "counter", nil, figures.misses)
      text += Self.metric("tollgate_profile_cache_evictions_total", "counter", nil, figures.evictions)
      text += Self.metric(
        "tollgate_profile_cache_bypass", "gauge",
        "1 while other instances' changes cannot be heard (reads skip the cache).", figures.bypass ? 1 : 0)
      text += Self.metric(
        "tollgate_profile_cache_outages_total", "counter",
        "Times the cache started bypassing.", figures.outages)
      let footprint = cache.footprint
      text += Self.metric(
        "tollgate_profile_cache_bytes", "gauge",
        "Memory the cache holds, counted from its allocations (records, index, strings).", footprint.bytes)
      text += Self.metric(
        "tollgate_profile_cache_overflowed", "gauge",
        "Profiles whose packed data did not fit in their record's 32 bytes.", footprint.overflowed)
      text += Self.metric(
        "tollgate_profile_cache_warming", "gauge",
        "1 while profiles are read into the cache at start.", cache.warming ? 1 : 0)
    }
    if let writes = cache?.assignmentWrites {
      text += Self.metric(
        "tollgate_assignment_writes_pending", "gauge",
        "First-time A/B assignments waiting for their batch write.", writes.pending)
      text += Self.metric("tollgate_assignment_writes_total", "counter", nil, writes.written)
      text += Self.metric(
        "tollgate_assignment_writes_dropped_total", "counter",
        "Assignments dropped after the database refused them too long (recomputed on the next request).",
        writes.dropped)
    }
    return text
  }

  /// One unlabelled sample with its `# HELP` (when given) and `# TYPE` lines.
  static func metric(_ name: String, _ type: String, _ help: String?, _ value: Int) -> String {
    (help.map { "# HELP \(name) \($0)\n" } ?? "") + "# TYPE \(name) \(type)\n\(name) \(value)\n"
  }
}
