import Foundation
import TollgateDomain
import TollgateSupport

/// The App Store Server API's rows: each app's sealed In-App Purchase key, and the leased
/// notification-recovery job per app and environment.
public protocol AppStoreServerRepository: Sendable {
  /// Stores the sealed key and schedules a recovery now in each environment.
  func saveAppStoreCredentials(
    appId: Int64, sealedKey: String, keyFingerprint: String, environments: [String], at: Date
  ) throws
  /// Forgets the key and the recovery jobs; false when there was no key.
  func deleteAppStoreCredentials(appId: Int64) throws -> Bool
  /// The app's key, sealed.
  func appStoreCredentials(appId: Int64) throws -> StoredAppStoreCredentials?
  /// Leases the most overdue scheduled job until `leaseUntil`.
  func claimRecovery(now: Date, leaseUntil: Date, owner: String) throws -> RecoveryJob?
  /// Starts a run over `from…to` (a run with a window already resumes it instead); false when
  /// the lease was lost.
  func beginRecoveryRun(appId: Int64, environment: String, owner: String, from: Date, to: Date, at: Date) throws
    -> Bool
  /// Records a page applied: its counts, the next page's token, a renewed lease; false when
  /// the lease was lost.
  func saveRecoveryPage(
    appId: Int64, environment: String, owner: String, nextPage: String?, counts: RecoveryPageCounts,
    leaseUntil: Date, at: Date
  ) throws -> Bool
  /// Ends the run and frees the lease.
  func finishRecovery(appId: Int64, environment: String, owner: String, _ outcome: RecoveryOutcome, at: Date) throws
  /// Makes the app's recoveries due now (stopped ones too); false without a key.
  func requestRecovery(appId: Int64, at: Date) throws -> Bool
  /// The app's recovery jobs, by environment.
  func recoveries(appId: Int64) throws -> [RecoveryJob]
  /// When the latest App Store notification for the app was received, if any.
  func latestNotificationReceived(appId: Int64) throws -> Date?
  /// Subscriptions of `environment` whose latest period ended before `endedBefore` with no
  /// check by Apple since: reconciliation asks Apple about them (oldest first).
  func subscriptionsToReconcile(appId: Int64, environment: String, endedBefore: Date, limit: Int) throws -> [String]
  /// Notes that Apple was asked about a subscription.
  func markReconciled(appId: Int64, original: String, at: Date) throws
  /// Adds to the count of subscriptions reconciliation found changed.
  func addReconciled(appId: Int64, environment: String, count: Int) throws
  /// Records a request for Apple's TEST notification (replacing an earlier one).
  func requestTestNotification(appId: Int64, environment: String, at: Date) throws
  /// Requests Apple has not been asked for yet.
  func pendingTestNotifications() throws -> [TestNotificationRequest]
  /// What Apple answered a request: its token, or an error.
  func recordTestNotification(appId: Int64, requestedAt: Double, token: String?, error: String?, at: Date) throws
  /// The app's latest request, with when its TEST notification arrived.
  func testNotification(appId: Int64) throws -> TestNotificationRequest?
  /// Records an operator's request to refresh a customer's history from Apple (replacing an
  /// earlier one), `requested`, or `running` when this process does it at once; answers it as
  /// this statement stored it.
  func requestHistoryRefresh(appId: Int64, profileId: String, by actor: String, running: Bool, at: Date) throws
    -> HistoryRefreshRecord
  /// Takes the requested refreshes (marking them `running`) for this process to do.
  func claimRequestedRefreshes(limit: Int) throws -> [HistoryRefreshRecord]
  /// Records how a refresh ended.
  func finishHistoryRefresh(_ record: HistoryRefreshRecord) throws
  /// A profile's latest refresh.
  func historyRefresh(appId: Int64, profileId: String) throws -> HistoryRefreshRecord?
  /// Takes one refund request due for an answer, leased until `leaseUntil`.
  func claimRefundRequest(now: Date, leaseUntil: Date) throws -> StoredRefundRequest?
  /// Records an attempt to answer a refund request.
  func finishRefundRequest(appId: Int64, notificationUUID: String, _ outcome: RefundAnswerOutcome, at: Date) throws
  /// Refund requests Apple signed in `[from, to)`, oldest first, with the profiles owning each purchase.
  func refundRequests(appId: Int64, from: Date, to: Date) throws -> [StoredRefundRequest]
}
