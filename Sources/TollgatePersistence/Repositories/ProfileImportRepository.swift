import Foundation
import TollgateDomain
import TollgateSupport

/// Profiles brought from before Tollgate, and the jobs that fetch their histories from Apple.
public protocol ProfileImportRepository: Sendable {
  /// Starts an import; its number.
  func beginImport(appId: Int64, source: String, by actor: String, at: Date) throws -> Int64
  /// Stores a batch of profiles in one transaction: new ones with their install cohorts
  /// (a profile already there is left as it is), and a history job for each new customer with
  /// transaction ids (none twice).
  func importBatch(appId: Int64, _ profiles: [ImportedProfile], at: Date) throws -> ImportBatchOutcome
  /// Records an import's counts and refusals.
  func finishImport(_ record: ProfileImportRecord) throws
  /// An import of the app.
  func profileImport(appId: Int64, id: Int64) throws -> ProfileImportRecord?
  /// Takes one history job due now, leased until `leaseUntil`.
  func claimHistoryImport(now: Date, leaseUntil: Date, owner: String) throws -> HistoryImportJob?
  /// Stores the revision a job reached and what the page held; false when the lease was lost.
  func saveHistoryImportPage(
    _ job: HistoryImportJob, owner: String, revision: String, transactions: Int, changed: Int, refused: Int,
    leaseUntil: Date
  ) throws -> Bool
  /// Records how a job's run ended.
  func finishHistoryImport(_ job: HistoryImportJob, owner: String, _ outcome: HistoryImportOutcome, at: Date) throws
  /// The app's history jobs, counted.
  func historyImportProgress(appId: Int64) throws -> HistoryImportProgress
  /// How many profiles the app has.
  func profileCount(appId: Int64) throws -> Int
}
