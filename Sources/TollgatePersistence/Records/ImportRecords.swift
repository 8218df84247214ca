import Foundation
import TollgateDomain
import TollgateSupport

/// One profile import: where it came from, its counts, and the lines it refused.
public struct ProfileImportRecord: Sendable, Hashable {
  public var id: Int64
  public var appId: Int64
  /// `ndjson`, `revenuecat`, `adapty`.
  public var source: String
  public var startedAt: Double
  public var finishedAt: Double?
  public var lines: Int64
  /// New profiles, profiles that were there already (left as they are), lines refused, and
  /// customers whose history is fetched from Apple.
  public var imported: Int64
  public var existing: Int64
  public var refused: Int64
  public var histories: Int64
  /// The refused lines, one JSON object a line (`{"line", "path", "message"}`), the first 10 000.
  public var refusals: String
  public var requestedBy: String

  public init(
    id: Int64, appId: Int64, source: String, startedAt: Double, finishedAt: Double?, lines: Int64, imported: Int64,
    existing: Int64, refused: Int64, histories: Int64, refusals: String, requestedBy: String
  ) {
    self.id = id
    self.appId = appId
    self.source = source
    self.startedAt = startedAt
    self.finishedAt = finishedAt
    self.lines = lines
    self.imported = imported
    self.existing = existing
    self.refused = refused
    self.histories = histories
    self.refusals = refusals
    self.requestedBy = requestedBy
  }
}

/// What a batch of imported lines did.
public struct ImportBatchOutcome: Sendable, Hashable {
  public var imported = 0
  public var existing = 0
  public var histories = 0

  public init() {}
}

/// One page of a customer's history as recorded: where the job got to and what the page held.
public struct HistoryImportPage: Sendable, Hashable {
  public var job: HistoryImportJob
  /// Apple's revision after the page.
  public var revision: String
  public var transactions: Int
  /// 1 when the profile's purchases changed.
  public var changed: Int
  public var refused: Int

  public init(job: HistoryImportJob, revision: String, transactions: Int, changed: Int, refused: Int) {
    self.job = job
    self.revision = revision
    self.transactions = transactions
    self.changed = changed
    self.refused = refused
  }
}

/// The job that fetches one imported customer's history from Apple.
public struct HistoryImportJob: Sendable, Hashable {
  public var appId: Int64
  public var profileId: String
  public var environment: String
  public var transactionId: String
  /// `pending`, `done`, `failed`.
  public var status: String
  /// Apple's revision reached: the next page starts there.
  public var revision: String?
  public var transactions: Int64
  public var changed: Int64
  public var refused: Int64
  public var attempts: Int64
  public var lastError: String?
}

/// How a history import run ended.
public enum HistoryImportOutcome: Sendable, Hashable {
  case done
  /// Try again at `next` from the revision reached.
  case retry(next: Date, error: String)
  /// Given up for this customer (Apple refused the id).
  case failed(error: String)
}

/// The history import of an app, counted.
public struct HistoryImportProgress: Sendable, Hashable {
  public var customers: Int64
  public var done: Int64
  public var failed: Int64
  public var pending: Int64
  public var transactions: Int64
  public var refused: Int64
  /// When the first job was created and the last one finished (seconds).
  public var startedAt: Double?
  public var lastFinishedAt: Double?
  public var lastError: String?

  public init(
    customers: Int64, done: Int64, failed: Int64, pending: Int64, transactions: Int64, refused: Int64,
    startedAt: Double?, lastFinishedAt: Double?, lastError: String?
  ) {
    self.customers = customers
    self.done = done
    self.failed = failed
    self.pending = pending
    self.transactions = transactions
    self.refused = refused
    self.startedAt = startedAt
    self.lastFinishedAt = lastFinishedAt
    self.lastError = lastError
  }
}
