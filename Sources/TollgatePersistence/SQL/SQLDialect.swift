import Foundation
import TollgateDomain
import TollgateSupport

/// What differs between SQL engines.
struct SQLDialect: Sendable {
  /// Appended to a SELECT that reads a row the transaction will update.
  let lockRow: String
  /// Run first in a transaction whose commit need not wait for the disk.
  let relaxTransaction: String?
  /// Appended to a claiming subquery so concurrent workers skip each other's rows.
  let skipLocked: String
  /// The channel that tells other instances, inside the changing transaction, which profiles
  /// changed; nil where one process owns the database.
  var announceChannel: String? = nil
  /// Claims due attribution jobs: parameters (lease end, now, limit); returns job columns.
  let claimJobs: String
  /// Run first in a bulk transaction whose lookups must be planned with their values: a plan
  /// cached while a table was still small scans it whole once it has grown (PostgreSQL's
  /// generic plans; nil where plans are not cached across executions that way).
  var planWithValues: String? = nil
  /// Run after a bulk load (a profile import) to gather the planner's statistics of the tables
  /// it filled whose reads went astray without them: PostgreSQL plans a table filled within the
  /// last minute from none, and a read of 64 of 40 000 imported profiles by id then scanned
  /// every row of the app instead of descending the key (7 ms; 1.2 of an import's 19.7 s of
  /// statements). The wide tables are left to autovacuum: sampling them took longer than their
  /// reads lost. Nil where the planner needs none.
  var analyzeAfterLoad: String? = nil
  /// Write transactions worth running at once: SQLite writes one at a time, PostgreSQL locks
  /// row by row, so independent writers proceed side by side.
  var parallelWriters = 1

  /// One statement announcing a profile (parameter: `appId:profileId`).
  var announceProfile: String? {
    announceChannel.map { "SELECT pg_notify('\($0)', ?)" }
  }

  /// One statement announcing `count` profiles (parameters: `appId:profileId` each).
  func announceProfiles(_ count: Int) -> String? {
    guard let announceChannel else { return nil }
    return "SELECT pg_notify('\(announceChannel)', x) FROM (VALUES "
      + Array(repeating: "(?)", count: count).joined(separator: ", ") + ") AS announced(x)"
  }
}
