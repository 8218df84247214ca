import Foundation
import TollgateDomain
import TollgateSupport

/// Apple Ads spend, names, the sealed Campaign Management API key and the importer's job.
public protocol AppleAdsSpendRepository: Sendable {
  /// Stores the sealed private key (replacing an earlier one) and schedules an import now,
  /// clearing a stopped job: new credentials are the fix for a failure.
  func saveAdsCredentials(appId: Int64, sealedKey: String, keyFingerprint: String, at: Date) throws

  /// Forgets the key and the job (the spend already imported stays).
  func deleteAdsCredentials(appId: Int64) throws -> Bool

  /// The sealed key, if any.
  func adsCredentials(appId: Int64) throws -> StoredAdsCredentials?

  /// Records that the key just obtained an access token.
  func markAdsCredentialsUsed(appId: Int64, at: Date) throws

  /// Takes the most overdue import whose lease has run out and leases it to `owner` until
  /// `leaseUntil` (another instance's claim skips it).
  func claimSpendImport(now: Date, leaseUntil: Date, owner: String) throws -> SpendImportJob?

  /// Starts a run over `days` for a leased job; false when the lease was lost.
  func beginSpendImportRun(appId: Int64, owner: String, days: ClosedRange<Int64>, at: Date) throws -> Bool

  /// Extends a leased job's lease (before every call to Apple), noting
  /// `at` as its last renewal; false when the lease was lost.
  func renewSpendImportLease(appId: Int64, owner: String, until: Date, at: Date) throws -> Bool

  /// Replaces the importer's rows of `days` with `figures`, upserts `names`, counts `skipped`
  /// unreadable rows (the last one's reason kept), moves the job's cursor past `days`, extends
  /// its lease and restarts its back-off — in one transaction, so a crash between windows
  /// neither loses nor double-counts a day. False (nothing written) when the lease was lost.
  func storeSpendWindow(
    appId: Int64, owner: String, days: ClosedRange<Int64>, figures: [SpendFigure], names: [AdsEntityName],
    skipped: [String], leaseUntil: Date, at: Date
  ) throws -> Bool

  /// When the next import may be claimed: the earliest of every scheduled job's due time (or
  /// the end of its lease, when one holds it); nil when none is scheduled.
  func nextSpendImportDue() throws -> Date?

  /// Ends a leased job's run; when `owner` still held it, `events` go to the outbox of
  /// `webhooks` in the same transaction.
  func finishSpendImport(
    appId: Int64, owner: String, _ outcome: SpendImportOutcome, events: [PendingWebhookEvent],
    webhooks: [WebhookConfig], at: Date
  ) throws

  /// Makes an app's import due now (a stopped one too); false when no credentials are stored.
  func requestSpendImport(appId: Int64, at: Date) throws -> Bool

  /// The app's job, if credentials were ever stored.
  func spendImportJob(appId: Int64) throws -> SpendImportJob?

  /// Upserts rows read from a file (day + entity: a second import of the same file changes nothing).
  func importSpendFile(appId: Int64, figures: [SpendFigure], names: [AdsEntityName], at: Date) throws

  /// Every spend row of the app over `days`.
  func spendFigures(appId: Int64, days: ClosedRange<Int64>) throws -> [SpendFigure]

  /// Every entity name the app's imports saw.
  func adsEntityNames(appId: Int64) throws -> [AdsEntityName]
}
