import Foundation
import Synchronization
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// How the recovery paces itself.
public struct RecoveryPolicy: Sendable, Hashable {
  /// How long a claimed job is another instance's no-go; renewed with every page.
  public var lease: TimeInterval = 120
  /// How often each app and environment is checked.
  public var every: TimeInterval = 600
  /// How far before the last window (or the last notification received) a run starts: a
  /// notification Apple signed just before it is asked for again, never missed.
  public var margin: TimeInterval = 3_600
  /// A first run of an app that never received a notification looks this far back.
  public var firstLookBack: TimeInterval = 30 * 86_400
  /// How long after a subscription's period ended without a fact reconciliation asks Apple
  /// about it (a renewal, an expiry or a refund nobody was told of).
  public var reconcileAfter: TimeInterval = 6 * 3_600
  /// Subscriptions asked about per run.
  public var reconcileBatch = 50
  /// The first back-off after a 5xx or a lost connection; it doubles up to `maximumRetry`.
  public var firstRetry: TimeInterval = 60
  public var maximumRetry: TimeInterval = 3_600

  /// The defaults.
  public init() {}
}

/// What became of one recovered notification.
public enum RecoveredNotification: Sendable {
  /// Applied now: Tollgate had never received it.
  case applied
  /// Tollgate had it already (delivered, or recovered before): nothing changed.
  case known
}

/// Recovers the App Store Server Notifications Apple could not deliver (an outage, a wrong
/// URL): per app and environment a leased job pages Get Notification History from the last
/// notification received (less a margin) to now, every few minutes, and hands each signed
/// payload to the path a delivered one takes — verified, recorded once per
/// `notificationUUID`, derived, rolled up, sent to webhooks. The page reached is stored, so a
/// killed run resumes there.
public final class NotificationRecovery: Sendable {
  let store: any AppStoreServerRepository
  let api: any AppStoreServerAPI
  let secrets: SecretBox?
  let time: any TimeSource
  let logger: Logger
  let policy: RecoveryPolicy
  let settings: @Sendable (Int64) -> AppStoreSettings?
  let apply: @Sendable (Int64, String) throws -> RecoveredNotification
  /// Records a signed transaction Apple's API answered; true when a profile changed.
  let reconcile: @Sendable (Int64, String) throws -> Bool
  /// Does the history refreshes the command line requested, at each pass.
  let refresher: HistoryRefresher?
  /// This process's name on the leases it takes.
  let owner = "recovery-" + Digest.hex(Digest.randomBytes(6))
  private let loop = BackgroundPasses()

  private struct LeaseLost: Error {}
  private struct Stop: Error {
    var failure: String
    var message: String
  }

  /// A recovery; `settings` reads the app's `app_store` configuration, `apply` records one
  /// signed notification as a delivered one is (throwing when it does not verify).
  public init(
    store: any AppStoreServerRepository, api: any AppStoreServerAPI, secrets: SecretBox?, time: any TimeSource,
    logger: Logger, policy: RecoveryPolicy = RecoveryPolicy(),
    settings: @escaping @Sendable (Int64) -> AppStoreSettings?,
    apply: @escaping @Sendable (Int64, String) throws -> RecoveredNotification,
    reconcile: @escaping @Sendable (Int64, String) throws -> Bool = { _, _ in false },
    refresher: HistoryRefresher? = nil
  ) {
    self.refresher = refresher
    self.reconcile = reconcile
    self.store = store
    self.api = api
    self.secrets = secrets
    self.time = time
    self.logger = logger
    self.policy = policy
    self.settings = settings
    self.apply = apply
    loop.bind { [weak self] in await self?.processDue() ?? 0 }
  }

  /// Starts passes every `interval` seconds (and at once after `kick()`).
  public func start(interval: TimeInterval = 15) { loop.start(interval: interval) }

  /// Runs a pass now (new credentials, an operator's request).
  public func kick() { loop.kick() }

  /// Stops the passes.
  public func stop() { loop.stop() }

  /// Waits (up to `timeout` seconds) until no pass started by `kick()` is running (tests).
  public func waitUntilIdle(timeout: TimeInterval = 10) { loop.waitUntilIdle(timeout: timeout) }

  /// One pass: asks Apple for the TEST notifications operators requested, then runs every
  /// due job, one after the other. Returns how much it did.
  @discardableResult
  public func processDue() async -> Int {
    await refresher?.runRequested()
    var ran = await sendTests()
    while ran < 16 {
      let now = time.now()
      let job: RecoveryJob?
      do {
        job = try store.claimRecovery(now: now, leaseUntil: now.addingTimeInterval(policy.lease), owner: owner)
      } catch {
        logger.error("app store recovery: cannot claim a job: \(error)")
        return ran
      }
      guard let job else { return ran }
      await run(job)
      ran += 1
    }
    return ran
  }

  /// Asks Apple for each requested TEST notification; what Apple answered (its token, or why
  /// not) goes to the status. The notification itself arrives at the notification URL.
  private func sendTests() async -> Int {
    let pending: [TestNotificationRequest]
    do { pending = try store.pendingTestNotifications() } catch { return 0 }
    for request in pending {
      var token: String?
      var failure: String?
      do {
        let bearer = try credentials(appId: request.appId).token(now: time.now())
        token = try await self.api.requestTestNotification(environment: request.environment, token: bearer)
        logger.info("app store: app \(request.appId): Apple accepted a TEST notification (\(request.environment))")
      } catch let stop as Stop {
        failure = stop.message
      } catch {
        failure = "\(error)"
      }
      if let failure { logger.warn("app store: app \(request.appId): no TEST notification: \(failure)") }
      try? store.recordTestNotification(
        appId: request.appId, requestedAt: request.requestedAt, token: token, error: failure, at: time.now())
    }
    return pending.count
  }

  /// The app's settings, its `server_api` and its In-App Purchase key, opened.
  private func credentials(appId: Int64) throws -> AppStoreServerKeys.Opened {
    do {
      return try AppStoreServerKeys(store: store, secrets: secrets).open(appId: appId, settings: settings(appId))
    } catch {
      switch error {
      case .notConfigured(let message): throw Stop(failure: "not_configured", message: message)
      case .credentials(let message): throw Stop(failure: "credentials", message: message)
      }
    }
  }

  /// Runs one claimed job to its end (or a failure) and records the outcome.
  func run(_ job: RecoveryJob) async {
    let label = "app store recovery: app \(job.appId) \(job.environment)"
    let outcome: RecoveryOutcome
    do {
      let (from, to) = try await recover(job)
      outcome = .completed(next: time.now().addingTimeInterval(policy.every), from: from, to: to)
    } catch let stop as Stop {
      logger.warn("\(label): stopped (\(stop.failure)): \(stop.message)")
      outcome = .failed(failure: stop.failure, error: stop.message)
    } catch is LeaseLost {
      logger.warn("\(label): another instance took the job over")
      return
    } catch let error as AppStoreServerAPIError {
      outcome = decide(error, job: job, label: label)
    } catch {
      // A store error: the lease runs out and the run resumes from its page.
      logger.error("\(label): \(error)")
      return
    }
    do {
      try store.finishRecovery(appId: job.appId, environment: job.environment, owner: owner, outcome, at: time.now())
    } catch {
      logger.error("\(label): cannot record the outcome: \(error)")
    }
  }

  private func decide(_ error: AppStoreServerAPIError, job: RecoveryJob, label: String) -> RecoveryOutcome {
    let backoff = min(policy.maximumRetry, policy.firstRetry * pow(2, Double(min(job.attempts, 20))))
    let now = time.now()
    switch error {
    case .credentials(let message):
      logger.warn("\(label): stopped (credentials): \(message)")
      return .failed(failure: "credentials", error: message)
    case .rateLimited(let until, let message):
      let next = until.map { max($0, now) } ?? now.addingTimeInterval(backoff)
      logger.warn("\(label): \(message); next try at \(Timestamp.string(next))")
      return .retry(next: next, error: message)
    case .unavailable(let message), .unexpected(let message):
      logger.warn("\(label): \(message); next try in \(Int(backoff)) s")
      return .retry(next: now.addingTimeInterval(backoff), error: message)
    case .rejected(_, let message):
      // An expired or invalid page token: the window is asked for again from its first page
      // (what was applied is known and counted once).
      _ = try? store.saveRecoveryPage(
        appId: job.appId, environment: job.environment, owner: owner, nextPage: nil, counts: RecoveryPageCounts(),
        leaseUntil: now.addingTimeInterval(policy.lease), at: now)
      logger.warn("\(label): \(message); the window starts again in \(Int(policy.firstRetry)) s")
      return .retry(next: now.addingTimeInterval(policy.firstRetry), error: message)
    }
  }

  /// Pages the job's window, applying each notification; returns the window covered.
  private func recover(_ job: RecoveryJob) async throws -> (Date, Date) {
    let opened = try credentials(appId: job.appId)
    let now = time.now()
    let (from, to) = try window(job, now: now)
    guard
      try store.beginRecoveryRun(
        appId: job.appId, environment: job.environment, owner: owner, from: from, to: to, at: now)
    else { throw LeaseLost() }
    let request = NotificationHistoryRequest(
      startDate: Int64(from.timeIntervalSince1970 * 1000), endDate: Int64(to.timeIntervalSince1970 * 1000))
    var pageToken = job.pageToken
    while true {
      let token = try opened.token(now: time.now())
      let page = try await self.api.notificationHistory(
        environment: job.environment, token: token, request: request, paginationToken: pageToken)
      var counts = RecoveryPageCounts()
      for item in page.notificationHistory {
        do {
          switch try apply(job.appId, item.signedPayload) {
          case .applied: counts.recovered += 1
          case .known: counts.alreadyKnown += 1
          }
        } catch let refused as DomainError {
          // Never applied: what does not verify is reported, and the run goes on.
          counts.refused += 1
          logger.warn("app store recovery: app \(job.appId): a notification was refused: \(refused.message)")
        }
      }
      let next = page.hasMore ? page.paginationToken : nil
      let at = time.now()
      guard
        try store.saveRecoveryPage(
          appId: job.appId, environment: job.environment, owner: owner, nextPage: next, counts: counts,
          leaseUntil: at.addingTimeInterval(policy.lease), at: at)
      else { throw LeaseLost() }
      if counts.recovered > 0 {
        logger.info(
          "app store recovery: app \(job.appId) \(job.environment): recovered \(counts.recovered) notification(s) Apple had not delivered"
        )
      }
      guard let next else { break }
      pageToken = next
    }
    try await reconcileEnded(job, opened)
    return (from, to)
  }

  /// Asks Apple about subscriptions whose period ended `reconcileAfter` ago with no fact since
  /// (Get All Subscription Statuses); what Apple answers is recorded like a notified
  /// transaction: a renewal, a refund or an upgrade nobody was told of.
  private func reconcileEnded(_ job: RecoveryJob, _ opened: AppStoreServerKeys.Opened) async throws {
    let now = time.now()
    let due = try store.subscriptionsToReconcile(
      appId: job.appId, environment: job.environment, endedBefore: now.addingTimeInterval(-policy.reconcileAfter),
      limit: policy.reconcileBatch)
    var changed = 0
    for original in due {
      let answer: SubscriptionStatusesAnswer
      do {
        answer = try await api.subscriptionStatuses(
          environment: job.environment, transactionId: original, token: try opened.token(now: time.now()))
      } catch let error as AppStoreServerAPIError {
        guard case .rejected(_, let message) = error else { throw error }
        // Apple does not know this one (a purged Sandbox purchase, another app's id): asked,
        // noted, and the run goes on — one such subscription must not stall the recovery.
        logger.warn("app store reconciliation: app \(job.appId): subscription \(original): \(message)")
        try store.markReconciled(appId: job.appId, original: original, at: time.now())
        continue
      }
      for last in answer.data.flatMap(\.lastTransactions) where last.originalTransactionId == original {
        do {
          if try reconcile(job.appId, last.signedTransactionInfo) { changed += 1 }
        } catch let refused as DomainError {
          logger.warn("app store reconciliation: app \(job.appId): a transaction was refused: \(refused.message)")
        }
      }
      try store.markReconciled(appId: job.appId, original: original, at: time.now())
    }
    try store.addReconciled(appId: job.appId, environment: job.environment, count: changed)
    if changed > 0 {
      logger.info(
        "app store reconciliation: app \(job.appId) \(job.environment): \(changed) subscription(s) had changed without a notification"
      )
    }
  }

  /// The window to ask for: the run in progress's, else from the last covered end (or the last
  /// notification received, or `firstLookBack`) less the margin, to now; never older than
  /// Apple keeps (180 days).
  private func window(_ job: RecoveryJob, now: Date) throws -> (Date, Date) {
    if let start = job.runStart, let end = job.runEnd {
      return (Date(timeIntervalSince1970: start), Date(timeIntervalSince1970: end))
    }
    let received = job.coveredTo == nil ? try store.latestNotificationReceived(appId: job.appId) : nil
    let last =
      job.coveredTo.map(Date.init(timeIntervalSince1970:)) ?? received ?? now.addingTimeInterval(-policy.firstLookBack)
    let oldest = now.addingTimeInterval(-NotificationHistoryRequest.retention + policy.margin)
    return (max(last.addingTimeInterval(-policy.margin), oldest), now)
  }
}
