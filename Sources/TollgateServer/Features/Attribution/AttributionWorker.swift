import Dispatch
import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Resolves pending tokens with Apple. The queue is the `attribution_jobs` table, not
/// memory: a restart picks up where the last process stopped. Each pass claims up to
/// `concurrency` due jobs (a lease keeps other workers off them), asks Apple, and stores
/// the outcome; a profile that changed wakes its long polls.
public final class AttributionWorker: Sendable {
  /// Jobs resolved at once, at most.
  public let concurrency: Int
  /// Pending jobs beyond which new tokens are refused (503).
  public let maxQueue: Int
  /// `maxQueue` unless the operator sets it: 25–45 s of the worker's work on 2 cores (it applied
  /// about 400 tokens a second on SQLite and 220 on PostgreSQL, BENCHMARKS.md).
  public static let defaultMaxQueue = 10_000
  /// How long a claimed job stays invisible to other passes.
  static let lease: TimeInterval = 30

  let attributionJobs: any AttributionJobRepository
  let apple: any AppleAdsResolving
  let time: any TimeSource
  let logger: Logger
  let policy: AttributionPolicy
  let allowsTestAttribution: @Sendable (Int64) -> Bool
  /// An app's webhooks (an applied attribution is an event).
  let webhooks: @Sendable (Int64) -> [WebhookConfig]
  let onChange: @Sendable (ProfileRecord, Int64) -> Void
  private let outcomes = Mutex<[String: Int]>([:])
  private let loop = BackgroundPasses()

  /// Creates a worker; `onChange` hears about every profile an outcome changed.
  public init(
    attributionJobs: any AttributionJobRepository, apple: any AppleAdsResolving, time: any TimeSource, logger: Logger,
    policy: AttributionPolicy = AttributionPolicy(), concurrency: Int = 4, maxQueue: Int = defaultMaxQueue,
    allowsTestAttribution: @escaping @Sendable (Int64) -> Bool = { _ in false },
    webhooks: @escaping @Sendable (Int64) -> [WebhookConfig] = { _ in [] },
    onChange: @escaping @Sendable (ProfileRecord, Int64) -> Void = { _, _ in }
  ) {
    self.attributionJobs = attributionJobs
    self.apple = apple
    self.time = time
    self.logger = logger
    self.policy = policy
    self.concurrency = concurrency
    self.maxQueue = maxQueue
    self.allowsTestAttribution = allowsTestAttribution
    self.webhooks = webhooks
    self.onChange = onChange
    loop.bind { [weak self] in await self?.processDue() ?? 0 }
  }

  /// One pass: claims the due jobs and asks Apple about them at once. Where the database writes
  /// one transaction at a time (`outcomeWriters` 1, SQLite) the pass's outcomes are stored
  /// together in one; where writers proceed side by side (PostgreSQL) each is stored as soon as
  /// it is known. Returns how many it handled.
  @discardableResult
  public func processDue() async -> Int {
    let jobs: [AttributionJob]
    do {
      jobs = try attributionJobs.claimAttributionJobs(now: time.now(), lease: Self.lease, limit: concurrency)
    } catch {
      logger.error("attribution: cannot claim jobs: \(error)")
      return 0
    }
    if attributionJobs.outcomeWriters > 1 {
      await withTaskGroup(of: Void.self) { group in
        for job in jobs {
          group.addTask {
            self.store([(job, await self.decide(job))])
          }
        }
      }
    } else {
      let decided = await withTaskGroup(of: (AttributionJob, AttributionOutcome).self) { group in
        for job in jobs { group.addTask { (job, await self.decide(job)) } }
        return await group.reduce(into: []) { $0.append($1) }
      }
      store(decided)
    }
    return jobs.count
  }

  /// Apple's answer about `job`, made an outcome by the policy.
  private func decide(_ job: AttributionJob) async -> AttributionOutcome {
    let answer = await apple.resolve(token: job.token)
    let outcome = policy.outcome(
      of: answer, job: job, now: time.now(), allowTestAttribution: allowsTestAttribution(job.appId))
    let label: String
    switch outcome {
    case .retry: label = "retry"
    case .final(let status, _, _, _): label = status.rawValue
    }
    outcomes.withLock { $0[label, default: 0] += 1 }
    logger.info("attribution: profile \(job.profileId): \(label) after attempt \(job.attempts + 1)")
    return outcome
  }

  /// Stores outcomes in one transaction; when it is refused, each alone, so one that cannot be
  /// stored holds back only its own job.
  private func store(_ decided: [(AttributionJob, AttributionOutcome)]) {
    guard !decided.isEmpty else { return }
    let now = time.now()
    let finishes = decided.map { job, outcome in
      AttributionFinish(job, outcome, settle: { Self.settle($0, outcome, at: now) })
    }
    do {
      for (job, profile) in try attributionJobs.finishAttributions(finishes, at: now, webhooks: webhooks) {
        onChange(profile, job.appId)
      }
      return
    } catch  where finishes.count > 1 {
      logger.error("attribution: cannot store \(finishes.count) outcomes at once, storing each alone: \(error)")
    } catch {
      // The lease expires and the job is tried again: nothing is lost.
      logger.error("attribution: cannot store the outcome for \(finishes[0].job.profileId): \(error)")
      return
    }
    for finish in finishes {
      do {
        for (job, profile) in try attributionJobs.finishAttributions([finish], at: now, webhooks: webhooks) {
          onChange(profile, job.appId)
        }
      } catch {
        // The lease expires and the job is tried again: nothing is lost.
        logger.error("attribution: cannot store the outcome for \(finish.job.profileId): \(error)")
      }
    }
  }

  /// What a final outcome does to the profile (`AttributionSettlement`); a retry does nothing.
  static func settle(_ profile: ProfileRecord, _ outcome: AttributionOutcome, at: Date) -> AttributionSettlement? {
    guard case .final(let status, let payload, _, _) = outcome else { return nil }
    return AttributionSettlement.of(profile, status: status, payload: payload, at: at)
  }

  /// Starts passes every `interval` seconds (and at once after `kick()`).
  public func start(interval: TimeInterval = 0.5) { loop.start(interval: interval) }

  /// Runs a pass now (a new token arrived); passes never overlap.
  public func kick() { loop.kick() }

  /// Waits (up to `timeout` seconds) until no pass started by `kick()` is running.
  public func waitUntilIdle(timeout: TimeInterval = 10) { loop.waitUntilIdle(timeout: timeout) }

  /// Stops the timer and waits (up to 10 s) for a running pass to store its outcomes;
  /// pending jobs stay in the table for the next start.
  public func stop() { loop.stop() }

  /// Outcomes so far by label (`applied`, `retry`, …), for `/metrics`.
  public var outcomeCounts: [String: Int] { outcomes.withLock { $0 } }
}
