import Foundation
import TollgateDomain
import TollgateSupport

/// A customer's history refreshed from Apple (Get Transaction History), as requested and done.
public struct HistoryRefreshRecord: Sendable, Hashable {
  public var appId: Int64
  public var profileId: String
  /// `requested` (a running server does it within seconds), `running`, `done`, `failed`.
  public var status: String
  public var requestedAt: Double
  public var requestedBy: String
  public var finishedAt: Double?
  /// Transactions Apple answered, those that changed a profile, those that did not verify.
  public var transactions: Int64
  public var changed: Int64
  public var refused: Int64
  /// The last revision Apple answered per environment.
  public var productionRevision: String?
  public var sandboxRevision: String?
  public var error: String?

  public init(
    appId: Int64, profileId: String, status: String, requestedAt: Double, requestedBy: String,
    finishedAt: Double? = nil, transactions: Int64 = 0, changed: Int64 = 0, refused: Int64 = 0,
    productionRevision: String? = nil, sandboxRevision: String? = nil, error: String? = nil
  ) {
    self.appId = appId
    self.profileId = profileId
    self.status = status
    self.requestedAt = requestedAt
    self.requestedBy = requestedBy
    self.finishedAt = finishedAt
    self.transactions = transactions
    self.changed = changed
    self.refused = refused
    self.productionRevision = productionRevision
    self.sandboxRevision = sandboxRevision
    self.error = error
  }
}

/// One of Apple's refund requests (`CONSUMPTION_REQUEST`) and what became of it.
public struct StoredRefundRequest: Sendable, Hashable {
  public var appId: Int64
  public var notificationUUID: String
  public var transactionId: String
  public var originalTransactionId: String
  public var productId: String
  /// Apple's product type (`Auto-Renewable Subscription`, `Consumable`, …).
  public var productType: String
  public var environment: String
  /// Apple's `consumptionRequestReason`.
  public var reason: String?
  /// When Apple signed the request (the 12-hour deadline runs from here), and when it arrived.
  public var requestedAt: Double
  public var receivedAt: Double
  /// `pending` (to send), `answered`, `not_sent` (off, or no consent: `lastError` says which),
  /// `expired` (the deadline passed unanswered), `failed` (Apple refused the answer).
  public var status: String
  public var nextTryAt: Double
  public var attempts: Int64
  /// The body sent (JSON), when one was.
  public var answer: String?
  public var answeredAt: Double?
  public var lastError: String?
  /// `refunded` or `declined` once Apple said; nil while open.
  public var outcome: String?
  public var closedAt: Double?
  /// The profiles that own the purchase (read with the request, not stored with it).
  public var owners: [String]

  public init(
    appId: Int64, notificationUUID: String, transactionId: String, originalTransactionId: String, productId: String,
    productType: String, environment: String, reason: String?, requestedAt: Double, receivedAt: Double,
    status: String, nextTryAt: Double, attempts: Int64 = 0, answer: String? = nil, answeredAt: Double? = nil,
    lastError: String? = nil, outcome: String? = nil, closedAt: Double? = nil, owners: [String] = []
  ) {
    self.appId = appId
    self.notificationUUID = notificationUUID
    self.transactionId = transactionId
    self.originalTransactionId = originalTransactionId
    self.productId = productId
    self.productType = productType
    self.environment = environment
    self.reason = reason
    self.requestedAt = requestedAt
    self.receivedAt = receivedAt
    self.status = status
    self.nextTryAt = nextTryAt
    self.attempts = attempts
    self.answer = answer
    self.answeredAt = answeredAt
    self.lastError = lastError
    self.outcome = outcome
    self.closedAt = closedAt
    self.owners = owners
  }
}

/// How an attempt to answer a refund request ended.
public enum RefundAnswerOutcome: Sendable, Hashable {
  /// Apple accepted the body (202).
  case answered(body: String)
  /// A transient failure: try again at `next`.
  case retry(next: Date, error: String)
  /// Given up: `expired` (past Apple's deadline) or `failed` (Apple refused it).
  case stopped(status: String, error: String)
}

/// A notification about a profile's purchases, as the timeline shows it.
public struct NotificationLine: Sendable, Hashable {
  public var uuid: String
  public var type: String
  public var subtype: String?
  public var originalTransactionId: String?
  public var signedAt: Double
  public var receivedAt: Double
  /// `delivered` (Apple posted it) or `recovered` (Tollgate found it in Apple's history).
  public var origin: String
}
