import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Failures of a store that callers handle.
public enum StoreError: Error, Equatable, CustomStringConvertible {
  /// An app with this name exists already.
  case appExists(String)
  /// The database said no; the message is the database's.
  case database(String)
  /// The database cannot be reached right now (503); the request may be retried.
  case unavailable(String)
  /// The database cannot write (disk full, I/O error): 503 `storage_unavailable`; nothing was
  /// written, reads keep working, and writes succeed again once space returns.
  case storageUnavailable(String)
  /// PostgreSQL rolled the transaction back to break a deadlock (40P01) or a serialization
  /// conflict (40001): nothing was written, and running it again may succeed.
  case conflict(String)
  /// A row did not hold what the code reads from it (a missing column, a NULL, another type):
  /// a bug or a damaged database, never read as a default.
  case corruptRow(String)

  public var description: String {
    switch self {
    case .appExists(let name): return "an app named \(name) exists already"
    case .database(let message): return "database error: \(message)"
    case .unavailable(let message): return "database unavailable: \(message)"
    case .storageUnavailable(let message): return "storage unavailable: \(message)"
    case .corruptRow(let message): return "unreadable row: \(message)"
    case .conflict(let message): return "transaction rolled back: \(message)"
    }
  }
}

/// What the client is told of a store that cannot write or cannot be reached: 503 with
/// `Retry-After`; nothing was written and the same request may succeed later.
extension StoreError: ClientExplainableError {
  public var clientError: DomainError? {
    switch self {
    case .storageUnavailable:
      return DomainError(
        .storageUnavailable, "The server cannot write to its storage (disk full or I/O error); retry later.",
        retryAfter: 5)
    case .conflict:
      // Still conflicting after the retries: nothing was written, the client may send it again.
      return DomainError(.databaseUnavailable, "The database was busy with a conflicting change; retry.", retryAfter: 1)
    case .unavailable:
      return DomainError(.databaseUnavailable, "The database cannot be reached; retry shortly.", retryAfter: 1)
    default: return nil
    }
  }

  public var logMessage: String {
    switch self {
    case .storageUnavailable(let reason): return "storage cannot write: \(reason)"
    // Still conflicting after the retries: nothing was written.
    case .conflict(let reason): return reason
    default: return description
    }
  }
}
