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
  /// The app's latest imports, newest first, without their refusals.
  func profileImports(appId: Int64, limit: Int) throws -> [ProfileImportRecord]
  /// The first day a profile installed with the SDK counts in the cohorts, when the app also
  /// has imported profiles (the day it switched over to Tollgate); nil otherwise.
  func switchOverDay(appId: Int64) throws -> Int64?
  /// Takes up to `limit` history jobs due now, leased until `leaseUntil`, in one transaction.
  func claimHistoryImports(now: Date, leaseUntil: Date, owner: String, limit: Int) throws -> [HistoryImportJob]
  /// Stores the revision each job reached and what its page held, in one transaction; for
  /// each page, whether its lease still held (false: another worker took the job over).
  func saveHistoryImportPages(_ pages: [HistoryImportPage], owner: String, leaseUntil: Date) throws -> [Bool]
  /// Records how each job's run ended, in one transaction.
  func finishHistoryImports(_ runs: [(HistoryImportJob, HistoryImportOutcome)], owner: String, at: Date) throws
  /// The app's history jobs, counted.
  func historyImportProgress(appId: Int64) throws -> HistoryImportProgress
  /// How many profiles the app has.
  func profileCount(appId: Int64) throws -> Int
}
