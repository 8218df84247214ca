import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Verified App Store facts (transactions, notifications, owners) and the purchases derived from them.
public protocol PurchaseRepository: Sendable {
  /// Records verified App Store facts and what they change, in one transaction: the
  /// notification (nothing at all when its `notificationUUID` was recorded before), each
  /// transaction (one row per `transactionId`, the latest `signedDate` wins), the owner
  /// claim, then every profile that owns (or owned) these subscriptions gets its purchases
  /// re-derived with `derive`; a profile whose purchases changed gets a new version.
  func recordAppStoreFacts(
    appId: Int64, _ facts: AppStoreFacts, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome

  /// Re-derives one profile's purchases (an expiry came due); returns it when it changed.
  func rederivePurchases(
    appId: Int64, profileId: String, at: Date, webhooks: [WebhookConfig], derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> ProfileRecord?

  /// A profile's stored transactions, newest first (admin lookups).
  func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction]
}
