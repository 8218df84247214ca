import Foundation

/// What differs between SQL engines.
struct SQLDialect: Sendable {
  /// Appended to a SELECT that reads a row the transaction will update.
  let lockRow: String
  /// Run first in a transaction whose commit need not wait for the disk.
  let relaxTransaction: String?
  /// Appended to a claiming subquery so concurrent workers skip each other's rows.
  let skipLocked: String
  /// Tells other instances, inside the changing transaction, that a profile changed
  /// (parameter: `appId:profileId`); nil where one process owns the database.
  var announceProfile: String? = nil
  /// Claims due attribution jobs: parameters (lease end, now, limit); returns job columns.
  let claimJobs: String
}
