import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// What recording one page of a customer's history did.
public struct ImportedPage: Sendable, Hashable {
  /// Transactions that verified and were recorded (once per transaction id).
  public var recorded: Int
  /// Whether the profile's purchases changed.
  public var changed: Bool
  /// Why each refused transaction did not verify.
  public var refused: [String]

  public init(recorded: Int, changed: Bool, refused: [String]) {
    self.recorded = recorded
    self.changed = changed
    self.refused = refused
  }
}

/// The histories of imported customers as the status shows them.
public struct HistoryImportStatus: Codable, Sendable, Hashable {
  public var customers: Int64
  public var done: Int64
  public var failed: Int64
  public var pending: Int64
  public var transactions: Int64
  public var refused: Int64
  public var startedAt: String?
  /// Seconds left at the pace so far (nil until a customer is done, or when none is pending).
  public var estimatedSecondsLeft: Int64?
  public var lastError: String?

  enum CodingKeys: String, CodingKey {
    case customers, done, failed, pending, transactions, refused
    case startedAt = "started_at"
    case estimatedSecondsLeft = "estimated_seconds_left"
    case lastError = "last_error"
  }
}

/// Fetches each imported customer's history from Apple (Get Transaction History, every page,
/// from a transaction id the import named) and records every transaction through the path
/// the SDK's take — verified, owned by the imported profile, credited to no paywall, rolled
/// into the reports on its own dates. Each customer is a leased job whose revision is stored
/// after every page: a killed run resumes there, and a transaction seen twice counts once.
public final class HistoryImporter: Sendable {
  let imports: any ProfileImportRepository
  let keys: any AppStoreServerRepository
  let api: any AppStoreServerAPI
  let secrets: SecretBox?
  let time: any TimeSource
  let logger: Logger
  let settings: @Sendable (Int64) -> AppStoreSettings?
  /// Records a page of signed transactions for a profile, in one unit of work.
  let record: @Sendable (Int64, String, [String]) throws -> ImportedPage
  let lease: TimeInterval = 120
  let firstRetry: TimeInterval
  let owner = "history-" + Digest.hex(Digest.randomBytes(6))
  private let loop = BackgroundPasses()

  public init(
    imports: any ProfileImportRepository, keys: any AppStoreServerRepository, api: any AppStoreServerAPI,
    secrets: SecretBox?, time: any TimeSource, logger: Logger, firstRetry: TimeInterval = 60,
    settings: @escaping @Sendable (Int64) -> AppStoreSettings?,
    record: @escaping @Sendable (Int64, String, [String]) throws -> ImportedPage
  ) {
    self.imports = imports
    self.keys = keys
    self.api = api
    self.secrets = secrets
    self.time = time
    self.logger = logger
    self.firstRetry = firstRetry
    self.settings = settings
    self.record = record
    loop.bind { [weak self] in await self?.processDue() ?? 0 }
  }

  /// Starts passes every `interval` seconds (and at once after `kick()`).
  public func start(interval: TimeInterval = 15) { loop.start(interval: interval) }
  /// Runs a pass now (an import created jobs).
  public func kick() { loop.kick() }
  /// Stops the passes.
  public func stop() { loop.stop() }
  /// Waits (up to `timeout` seconds) until no pass started by `kick()` is running (tests).
  public func waitUntilIdle(timeout: TimeInterval = 10) { loop.waitUntilIdle(timeout: timeout) }

  /// Runs due jobs, one customer after another (up to 256 a pass); returns how many.
  @discardableResult
  public func processDue() async -> Int {
    var ran = 0
    while ran < 256 {
      let now = time.now()
      let job: HistoryImportJob?
      do {
        job = try imports.claimHistoryImport(now: now, leaseUntil: now.addingTimeInterval(lease), owner: owner)
      } catch {
        logger.error("history import: cannot claim a job: \(error)")
        return ran
      }
      guard let job else { return ran }
      let outcome = await run(job)
      do {
        try imports.finishHistoryImport(job, owner: owner, outcome, at: time.now())
      } catch {
        logger.error("history import: cannot record the end of \(job.profileId): \(error)")
      }
      ran += 1
    }
    return ran
  }

  private struct LeaseLost: Error {}

  /// One customer's history from the revision reached; what became of the run.
  func run(_ job: HistoryImportJob) async -> HistoryImportOutcome {
    let label = "history import: app \(job.appId) profile \(job.profileId)"
    let now = time.now()
    let backoff = min(3_600, firstRetry * pow(2, Double(min(job.attempts - 1, 10))))
    let opened: AppStoreServerKeys.Opened
    do {
      opened = try AppStoreServerKeys(store: keys, secrets: secrets).open(
        appId: job.appId, settings: settings(job.appId))
    } catch {
      // Waits for the key: an import may come before the In-App Purchase key is uploaded.
      let message =
        switch error {
        case .notConfigured(let message), .credentials(let message): message
        }
      return .retry(next: now.addingTimeInterval(max(backoff, 600)), error: message)
    }
    var revision = job.revision
    do {
      while true {
        let page = try await api.transactionHistory(
          environment: job.environment, transactionId: job.transactionId, revision: revision,
          token: try opened.token(now: time.now()))
        let signed = page.signedTransactions ?? []
        let recorded =
          signed.isEmpty
          ? ImportedPage(recorded: 0, changed: false, refused: []) : try record(job.appId, job.profileId, signed)
        for message in recorded.refused { logger.warn("\(label): a transaction was refused: \(message)") }
        let (transactions, changed, refused) = (signed.count, recorded.changed ? 1 : 0, recorded.refused.count)
        guard
          try imports.saveHistoryImportPage(
            job, owner: owner, revision: page.revision, transactions: transactions, changed: changed,
            refused: refused, leaseUntil: time.now().addingTimeInterval(lease))
        else { throw LeaseLost() }
        revision = page.revision
        if !page.hasMore { return .done }
      }
    } catch let error as AppStoreServerAPIError {
      switch error {
      case .rateLimited(let until, let message):
        return .retry(next: until.map { max($0, now) } ?? now.addingTimeInterval(backoff), error: message)
      case .unavailable(let message), .unexpected(let message):
        return .retry(next: now.addingTimeInterval(backoff), error: message)
      case .credentials(let message):
        return .retry(next: now.addingTimeInterval(max(backoff, 600)), error: message)
      case .rejected(_, let message):
        logger.warn("\(label): Apple refused the transaction id \(job.transactionId): \(message)")
        return .failed(error: message)
      }
    } catch is LeaseLost {
      return .retry(next: now, error: "the lease was taken over")
    } catch {
      // A store error: try again later from the revision stored.
      logger.error("\(label): \(error)")
      return .retry(next: now.addingTimeInterval(backoff), error: "\(error)")
    }
  }

  /// The app's imported histories, counted, with an estimate of the time left.
  public func progress(appId: Int64) throws -> HistoryImportStatus {
    let progress = try imports.historyImportProgress(appId: appId)
    var estimate: Int64?
    if let started = progress.startedAt, let last = progress.lastFinishedAt, progress.pending > 0 {
      let finished = progress.done + progress.failed
      let elapsed = max(1, last - started)
      if finished > 0 { estimate = Int64((Double(progress.pending) * elapsed / Double(finished)).rounded(.up)) }
    }
    return HistoryImportStatus(
      customers: progress.customers, done: progress.done, failed: progress.failed, pending: progress.pending,
      transactions: progress.transactions, refused: progress.refused,
      startedAt: progress.startedAt.map { Timestamp.string(Date(timeIntervalSince1970: $0)) },
      estimatedSecondsLeft: estimate, lastError: progress.lastError)
  }
}
