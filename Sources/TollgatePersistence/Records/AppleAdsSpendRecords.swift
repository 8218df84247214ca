import Foundation
import TollgateDomain
import TollgateSupport

/// Where spend rows came from: the importer replaces its own rows of the days it re-reads; a
/// file import overwrites the rows it names.
public enum SpendSource: String, Sendable {
  case api
  case file
}

/// The sealed private key of an app's Campaign Management API credentials.
public struct StoredAdsCredentials: Sendable, Hashable {
  /// AES-256-GCM under the secrets key.
  public var sealedKey: String
  /// SHA-256 of the public key (hex): says which key is in use without revealing anything.
  public var keyFingerprint: String
  public var createdAt: Date
  public var lastUsedAt: Date?
}

/// An app's import job: scheduled, or stopped on a failure only new credentials (or an
/// operator's "run now") clear. `cursorDay` is where a run in progress resumes.
public struct SpendImportJob: Sendable, Hashable {
  public enum Status: String, Sendable {
    case scheduled
    case failed
  }
  public var appId: Int64
  public var status: Status
  public var nextRunAt: Date
  public var leaseOwner: String?
  public var leaseUntil: Date
  public var runFirstDay: Int64?
  public var runLastDay: Int64?
  public var cursorDay: Int64?
  /// The first full backfill finished.
  public var backfilled: Bool
  /// Consecutive failed attempts (the back-off grows with them).
  public var attempts: Int64
  public var rowsImported: Int64
  public var lastRunAt: Date?
  public var lastSuccessAt: Date?
  public var lastError: String?
  /// `credentials`, `configuration`, `api` when stopped.
  public var failure: String?
  /// Report rows the importer could not read and left out (every run so far), and why the last one was.
  public var rowsSkipped: Int64 = 0
  public var lastSkipped: String?
  /// When the lease holder last renewed the lease (nil when nobody holds it).
  public var leaseRenewedAt: Date?
}

/// How a claimed import ended.
public enum SpendImportOutcome: Sendable, Hashable {
  /// The run finished: the next one is due at `next`.
  case completed(next: Date)
  /// A transient failure (429, 5xx, no connection): try again at `next`, the run's progress kept.
  case retry(next: Date, error: String)
  /// Stopped until the credentials change: `failure` is its kind.
  case failed(failure: String, error: String)
}
