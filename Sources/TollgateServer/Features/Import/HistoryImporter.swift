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
///
/// Customers go in batches: up to `batchSize` claimed together, their pages fetched
/// `concurrency` at a time, each round of pages recorded in one unit of work and their
/// revisions in one more — two commits per round rather than four per customer, which is
/// what bounded the pace on a disk that waits for each commit. `lanes` batches are under way
/// at once, so one is fetched and verified while another is written.
public final class HistoryImporter: Sendable {
  let imports: any ProfileImportRepository
  let keys: any AppStoreServerRepository
  let api: any AppStoreServerAPI
  let secrets: SecretBox?
  let time: any TimeSource
  let logger: Logger
  let settings: @Sendable (Int64) -> AppStoreSettings?
  /// Records pages of signed transactions, each for its profile, in one unit of work.
  let record: @Sendable (Int64, [(profileId: String, page: [String])]) throws -> [ImportedPage]
  let lease: TimeInterval = 120
  let firstRetry: TimeInterval
  /// Customers claimed together, and requests to Apple in flight at once for each batch.
  let batchSize: Int
  let concurrency: Int
  /// Batches in progress at once.
  let lanes: Int
  let owner = "history-" + Digest.hex(Digest.randomBytes(6))
  private let loop = BackgroundPasses()

  public init(
    imports: any ProfileImportRepository, keys: any AppStoreServerRepository, api: any AppStoreServerAPI,
    secrets: SecretBox?, time: any TimeSource, logger: Logger, firstRetry: TimeInterval = 60, batchSize: Int = 64,
    concurrency: Int = 8, lanes: Int = 2, settings: @escaping @Sendable (Int64) -> AppStoreSettings?,
    record: @escaping @Sendable (Int64, [(profileId: String, page: [String])]) throws -> [ImportedPage]
  ) {
    self.imports = imports
    self.keys = keys
    self.api = api
    self.secrets = secrets
    self.time = time
    self.logger = logger
    self.firstRetry = firstRetry
    self.batchSize = max(1, batchSize)
    self.concurrency = max(1, concurrency)
    self.lanes = max(1, lanes)
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

  /// Runs due jobs, a batch of customers at a time (up to 16 batches a pass, `lanes` batches
  /// at once); returns how many.
  @discardableResult
  public func processDue() async -> Int {
    // Two lanes so that one batch's pages are fetched and verified while the batch before is
    // written: one lane alone left a core idle waiting for Apple, then the other for the disk.
    let perLane = max(1, 16 / lanes)
    return await withTaskGroup(of: Int.self) { group in
      for _ in 0..<lanes { group.addTask { await self.runBatches(perLane) } }
      return await group.reduce(0, +)
    }
  }

  /// Claims and runs up to `limit` batches, one after the other; returns how many jobs ran.
  private func runBatches(_ limit: Int) async -> Int {
    var ran = 0
    for _ in 0..<limit {
      let now = time.now()
      let jobs: [HistoryImportJob]
      do {
        jobs = try imports.claimHistoryImports(
          now: now, leaseUntil: now.addingTimeInterval(lease), owner: owner, limit: batchSize)
      } catch {
        logger.error("history import: cannot claim jobs: \(error)")
        return ran
      }
      guard !jobs.isEmpty else { return ran }
      let outcomes = await run(jobs)
      do {
        try imports.finishHistoryImports(Array(zip(jobs, outcomes)), owner: owner, at: time.now())
      } catch {
        logger.error("history import: cannot record the end of \(jobs.count) customers: \(error)")
      }
      ran += jobs.count
    }
    return ran
  }

  /// A batch of customers' histories from the revisions reached; what became of each run.
  func run(_ jobs: [HistoryImportJob]) async -> [HistoryImportOutcome] {
    let now = time.now()
    var outcomes: [HistoryImportOutcome?] = Array(repeating: nil, count: jobs.count)
    var revisions = jobs.map(\.revision)
    func backoff(_ job: HistoryImportJob) -> TimeInterval {
      min(3_600, firstRetry * pow(2, Double(min(job.attempts - 1, 10))))
    }
    // The app's key, opened once a batch. Without one the job waits: an import may come before
    // the In-App Purchase key is uploaded.
    var opened: [Int64: Result<AppStoreServerKeys.Opened, AppStoreServerKeys.Failure>] = [:]
    for (index, job) in jobs.enumerated() {
      let key =
        opened[job.appId]
        ?? Result { () throws(AppStoreServerKeys.Failure) in
          try AppStoreServerKeys(store: keys, secrets: secrets).open(appId: job.appId, settings: settings(job.appId))
        }
      opened[job.appId] = key
      if case .failure(let error) = key {
        let message =
          switch error {
          case .notConfigured(let message), .credentials(let message): message
          }
        outcomes[index] = .retry(next: now.addingTimeInterval(max(backoff(job), 600)), error: message)
      }
    }
    while true {
      let active = jobs.indices.filter { outcomes[$0] == nil }
      guard !active.isEmpty else { break }
      var requests: [(index: Int, token: String)] = []
      // One token an app a round: a token is good for many calls (Apple asks for no more).
      var tokens: [Int64: String] = [:]
      for index in active {
        do {
          let appId = jobs[index].appId
          guard case .success(let key) = opened[appId] else { continue }
          let token = try tokens[appId] ?? key.token(now: time.now())
          tokens[appId] = token
          requests.append((index, token))
        } catch {
          outcomes[index] = .retry(next: now.addingTimeInterval(backoff(jobs[index])), error: "\(error)")
        }
      }
      let fetched = await fetch(requests.map { (jobs[$0.index], revisions[$0.index], $0.token) })
      var pages: [(index: Int, page: TransactionHistoryPage)] = []
      for (request, result) in zip(requests, fetched) {
        let job = jobs[request.index]
        switch result {
        case .success(let page): pages.append((request.index, page))
        case .failure(let error):
          outcomes[request.index] = outcome(of: error, job, now: now, backoff: backoff(job))
        }
      }
      guard !pages.isEmpty else { continue }
      var saved: [HistoryImportPage] = []
      var savedFor: [(index: Int, hasMore: Bool)] = []
      for appId in Set(pages.map { jobs[$0.index].appId }).sorted() {
        let ofApp = pages.filter { jobs[$0.index].appId == appId }
        do {
          let recorded = try record(
            appId, ofApp.map { (jobs[$0.index].profileId, $0.page.signedTransactions ?? []) })
          for ((index, page), done) in zip(ofApp, recorded) {
            for message in done.refused {
              logger.warn(
                "history import: app \(appId) profile \(jobs[index].profileId): a transaction was refused: \(message)")
            }
            savedFor.append((index, page.hasMore))
            saved.append(
              HistoryImportPage(
                job: jobs[index], revision: page.revision, transactions: page.signedTransactions?.count ?? 0,
                changed: done.changed ? 1 : 0, refused: done.refused.count))
          }
        } catch {
          // A store error: try again later from the revisions stored.
          logger.error("history import: app \(appId): \(error)")
          for (index, _) in ofApp {
            outcomes[index] = .retry(next: now.addingTimeInterval(backoff(jobs[index])), error: "\(error)")
          }
        }
      }
      let held: [Bool]
      do {
        held = try imports.saveHistoryImportPages(saved, owner: owner, leaseUntil: time.now().addingTimeInterval(lease))
      } catch {
        logger.error("history import: cannot store where \(saved.count) customers got to: \(error)")
        for (index, _) in savedFor {
          outcomes[index] = .retry(next: now.addingTimeInterval(backoff(jobs[index])), error: "\(error)")
        }
        continue
      }
      for ((index, hasMore), (page, held)) in zip(savedFor, zip(saved, held)) {
        if !held {
          outcomes[index] = .retry(next: now, error: "the lease was taken over")
        } else if hasMore {
          revisions[index] = page.revision
        } else {
          outcomes[index] = .done
        }
      }
    }
    return outcomes.map { $0 ?? .retry(next: now, error: "not run") }
  }

  /// The next page of each job's history, `concurrency` requests in flight at once.
  private func fetch(_ requests: [(HistoryImportJob, String?, String)]) async
    -> [Result<TransactionHistoryPage, AppStoreServerAPIError>]
  {
    let api = self.api
    var results: [Result<TransactionHistoryPage, AppStoreServerAPIError>?] = Array(
      repeating: nil, count: requests.count)
    await withTaskGroup(of: (Int, Result<TransactionHistoryPage, AppStoreServerAPIError>).self) { group in
      var next = 0
      var inFlight = 0
      while next < requests.count || inFlight > 0 {
        while next < requests.count && inFlight < concurrency {
          let (index, (job, revision, token)) = (next, requests[next])
          next += 1
          inFlight += 1
          group.addTask {
            do throws(AppStoreServerAPIError) {
              let page = try await api.transactionHistory(
                environment: job.environment, transactionId: job.transactionId, revision: revision, token: token)
              return (index, .success(page))
            } catch {
              return (index, .failure(error))
            }
          }
        }
        guard let (index, result) = await group.next() else { break }
        inFlight -= 1
        results[index] = result
      }
    }
    return results.map { $0! }
  }

  /// What an answer from Apple other than a page means for a job.
  private func outcome(of error: AppStoreServerAPIError, _ job: HistoryImportJob, now: Date, backoff: TimeInterval)
    -> HistoryImportOutcome
  {
    switch error {
    case .rateLimited(let until, let message):
      return .retry(next: until.map { max($0, now) } ?? now.addingTimeInterval(backoff), error: message)
    case .unavailable(let message), .unexpected(let message):
      return .retry(next: now.addingTimeInterval(backoff), error: message)
    case .credentials(let message):
      return .retry(next: now.addingTimeInterval(max(backoff, 600)), error: message)
    case .rejected(_, let message):
      logger.warn(
        "history import: app \(job.appId) profile \(job.profileId): Apple refused the transaction id \(job.transactionId): \(message)"
      )
      return .failed(error: message)
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
