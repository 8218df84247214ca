import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Verified App Store facts (transactions, notifications, owners): rows read and written in
/// a unit of work. What the rows mean (who owns a subscription, which paywall gets the credit,
/// which webhook event a change makes) is decided by the caller with the domain's rules.
public protocol PurchaseRepository: Sendable {
  /// Runs `work` in one database transaction: everything it writes commits together or not
  /// at all. Profiles it saved are announced to every instance's cache after the commit.
  func purchases<T>(appId: Int64, _ work: (any PurchaseUnitOfWork) throws -> T) throws -> T

  /// A profile's stored transactions, newest first (admin lookups).
  func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction]

  /// The notifications about the subscriptions and purchases a profile owns, oldest first.
  func notifications(appId: Int64, profileId: String) throws -> [NotificationLine]

  /// Every access level given to a profile by hand, revoked ones too, oldest first.
  func grants(appId: Int64, profileId: String) throws -> [AccessGrant]

  /// Apple's refund requests about what a profile owns, oldest first.
  func refundRequests(appId: Int64, profileId: String) throws -> [StoredRefundRequest]
}

/// A transaction stored before, as read (and locked) inside a unit of work.
public struct StoredTransactionRow: Sendable {
  /// Its payload as stored (the latest signed version).
  public var payload: TransactionPayload
  /// When that version was signed (seconds).
  public var signedAt: Double
  /// The credit it was given when first stored.
  public var credit: PurchaseAttribution
  /// The variation the SDK named, when it did.
  public var variationId: String?
}

/// The rows of one app's purchases inside one database transaction.
public protocol PurchaseUnitOfWork {
  /// Stores a notification; false when its `notificationUUID` was stored before.
  func insert(_ notification: StoredNotification, at: Date) throws -> Bool
  /// The profiles owning a subscription, by id.
  func owners(of original: String) throws -> [String]
  /// Whether a profile with this id exists.
  func profileExists(_ id: String) throws -> Bool
  /// Reads at once what recording these transactions for these profiles asks one subscription
  /// or profile at a time (owners, first transactions, profiles their appAccountTokens name,
  /// Apple Ads installs), so a batch of many customers is a few statements, not a few per
  /// customer. Decides nothing.
  func prefetch(_ transactions: [TransactionPayload], profiles: [String]) throws
  /// The credit of a subscription's first stored transaction other than `transactionId`.
  func subscriptionCredit(of original: String, excluding transactionId: String) throws -> PurchaseAttribution?
  /// The last flow shown to a profile between two times (placement, audience, variation).
  func lastShown(to profileId: String, from: Date, through: Date) throws -> PurchaseAttribution?
  /// Stores a transaction first seen now with its credit; false when it was stored before.
  func insert(_ transaction: StoredTransaction, credit: PurchaseAttribution, at: Date) throws -> Bool
  /// A stored transaction, locked until the unit of work ends.
  func storedTransaction(_ transactionId: String) throws -> StoredTransactionRow?
  /// Replaces a stored transaction's payload with a newer signed version.
  func replace(_ transaction: StoredTransaction) throws
  /// Records the variation the SDK named for a transaction stored without one.
  func name(variation: String, of transactionId: String) throws
  /// Applies the report projections of a transaction first stored (`old` nil) or signed again.
  func rollTransaction(old: TransactionPayload?, new: TransactionPayload, credit: PurchaseAttribution) throws
  /// Recomputes the trial, subscription-series and cohort rows of these subscriptions.
  func rollSubscriptions(_ originals: [String]) throws
  /// Notes the end of a subscription's period (the latest one wins), for reconciliation.
  func noteSubscriptionEnd(_ original: String, environment: String, periodEnd: Date) throws
  /// Subscriptions bought under an appAccountToken that no profile owns yet.
  func unownedSubscriptions(token: String) throws -> [String]
  /// Removes one owner of a subscription.
  func unlink(_ original: String, from profileId: String) throws
  /// Adds an owner to a subscription (nothing when it is one already).
  func link(_ original: String, to profileId: String, at: Date) throws
  /// Runs `body` with these profiles locked (in id order) and the facts of the subscriptions
  /// they own read at once, for `lockedProfile` and `history(of:)` to answer each once without
  /// a statement; what `body` did not ask is forgotten after it.
  func readingAhead<T>(histories profileIds: [String], _ body: () throws -> T) throws -> T
  /// A profile, locked until the unit of work ends.
  func lockedProfile(_ id: String) throws -> ProfileRecord?
  /// A profile without a lock.
  func profile(_ id: String) throws -> ProfileRecord?
  /// Every fact about the subscriptions a profile owns.
  func history(of profileId: String) throws -> PurchaseHistory
  /// Saves a profile; it is announced to the caches after the commit.
  func save(_ profile: ProfileRecord) throws
  /// Puts events in the outbox of every webhook subscribed to them.
  func enqueue(_ events: [PendingWebhookEvent], to webhooks: [WebhookConfig], at: Date) throws
  /// Stores an access level given by hand; returns it with its number.
  func insertGrant(
    profileId: String, accessLevel: String, expiresAt: Date?, reason: String, by actor: String, at: Date
  ) throws -> AccessGrant
  /// Takes back every standing grant of `accessLevel` to a profile; returns those taken back.
  func revokeGrants(profileId: String, accessLevel: String, by actor: String, at: Date) throws -> [AccessGrant]
  /// Records a refund request; false when its notification was recorded before.
  func insert(_ request: StoredRefundRequest) throws -> Bool
  /// Closes the open refund requests of a transaction (`refunded`, `declined`).
  func closeRefundRequests(transactionId: String, outcome: String, at: Date) throws
}
