import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// One verified transaction to store.
public struct StoredTransaction: Sendable, Hashable {
  /// The decoded payload.
  public var payload: TransactionPayload
  /// Apple's JWS, kept so it can be verified again.
  public var jws: String
  /// The variation whose flow sold it, when the SDK named one.
  public var variationId: String?
  /// The variation the reports credit it to (read back from the store; nil: unattributed or
  /// not yet stored). Differs from `variationId` when the credit went to the last flow shown,
  /// or to the subscription's first transaction for a renewal.
  public var creditedVariationId: String?
  /// Already owned before the app used Tollgate: credited to no paywall, even one shown lately.
  public var owned: Bool

  public init(
    payload: TransactionPayload, jws: String, variationId: String? = nil, creditedVariationId: String? = nil,
    owned: Bool = false
  ) {
    self.payload = payload
    self.jws = jws
    self.variationId = variationId
    self.creditedVariationId = creditedVariationId
    self.owned = owned
  }
}

/// One verified notification to store.
public struct StoredNotification: Sendable, Hashable {
  public var uuid: String
  public var fact: NotificationFact
  /// The decoded notification, as JSON.
  public var payload: Data
  public var jws: String
  /// `delivered` (Apple posted it) or `recovered` (found in Apple's notification history).
  public var origin: String

  public init(uuid: String, fact: NotificationFact, payload: Data, jws: String, origin: String = "delivered") {
    self.uuid = uuid
    self.fact = fact
    self.payload = payload
    self.jws = jws
    self.origin = origin
  }
}

/// A batch of App Store facts.
public struct AppStoreFacts: Sendable {
  /// Transactions, alone (from the SDK) or from a notification.
  public var transactions: [StoredTransaction] = []
  /// The notification they came with.
  public var notification: StoredNotification?
  /// The profile that sent the transactions and claims their subscriptions.
  public var claimant: String?
  /// How a claim on a subscription owned by another profile is settled.
  public var sharing: AccessLevelSharing = .transfer
  /// The app's webhooks: the changes' events go to their outbox in the same transaction.
  public var webhooks: [WebhookConfig] = []
  /// The refund request a `CONSUMPTION_REQUEST` notification carries.
  public var refundRequest: StoredRefundRequest?

  public init(
    transactions: [StoredTransaction] = [], notification: StoredNotification? = nil, claimant: String? = nil,
    sharing: AccessLevelSharing = .transfer, webhooks: [WebhookConfig] = []
  ) {
    self.transactions = transactions
    self.notification = notification
    self.claimant = claimant
    self.sharing = sharing
    self.webhooks = webhooks
  }
}

/// What recording App Store facts did.
public struct AppStoreFactsOutcome: Sendable {
  /// The notification had been recorded before: nothing changed.
  public var duplicate = false
  /// Profiles whose purchases changed (new versions).
  public var changed: [ProfileRecord] = []
  /// The claimant as stored after the change.
  public var claimant: ProfileRecord?
  /// Original transactions that no profile owns yet (kept until one claims them).
  public var unowned: [String] = []

  public init() {}
}
