/// `POST /v1/sdk/profiles/{id}/transactions`: one StoreKit 2 transaction as Apple signed it.
public struct TransactionRequest: Codable, Sendable, Hashable {
  /// The transaction's JWS (`VerificationResult.jwsRepresentation`).
  public var signedTransaction: String
  /// The variation whose flow offered the product, when the purchase came from a flow.
  public var variationId: String?
  /// How the app came by it (`TransactionOrigin`); nil means a purchase.
  public var origin: String?

  /// Creates a request.
  public init(signedTransaction: String, variationId: String? = nil, origin: TransactionOrigin? = nil) {
    self.signedTransaction = signedTransaction
    self.variationId = variationId
    self.origin = origin?.rawValue
  }

  enum CodingKeys: String, CodingKey {
    case origin
    case signedTransaction = "signed_transaction"
    case variationId = "variation_id"
  }
}

/// How the app came by a transaction it hands to the server.
public enum TransactionOrigin: String, Sendable, CaseIterable {
  /// Bought now, or renewed: credited to the paywall the SDK names, else the last one shown.
  case purchase
  /// Already owned when the SDK first saw the store's entitlements (a subscriber from before
  /// Tollgate): it counts for access and revenue from now on and is credited to no paywall.
  case entitlement
}

/// `POST /v1/app-store/notifications/{app}`: what Apple posts (App Store Server Notifications V2).
public struct AppStoreNotificationRequest: Codable, Sendable, Hashable {
  /// The notification's JWS.
  public var signedPayload: String

  /// Creates a request.
  public init(signedPayload: String) { self.signedPayload = signedPayload }
}

/// What a subscription is doing now (`subscription.state` in audience rules).
public enum SubscriptionState: String, Codable, Sendable, Hashable, CaseIterable {
  /// Paid (or in a free trial) and not expired.
  case active
  /// Renewal failed, Apple's grace period runs: access is kept.
  case gracePeriod = "grace_period"
  /// Renewal failed, Apple keeps retrying: access is lost.
  case billingRetry = "billing_retry"
  /// Ended (see `expiration_reason`).
  case expired
  /// Refunded or revoked by Apple.
  case revoked
}

/// One access level of a profile (`profile.access_levels.premium`).
public struct AccessLevelPayload: Codable, Sendable, Hashable {
  /// The level's id from the configuration.
  public var id: String
  /// Whether the level is unlocked now.
  public var isActive: Bool
  /// The product that grants it.
  public var vendorProductId: String
  /// The transaction that grants it, and its original transaction.
  public var vendorTransactionId: String
  public var vendorOriginalTransactionId: String
  /// Always `app_store` today.
  public var store: String
  /// When the level was first activated (the original purchase), ISO 8601.
  public var activatedAt: String
  /// When it last renewed, ISO 8601.
  public var renewedAt: String?
  /// When it ends unless renewed; nil for lifetime, ISO 8601.
  public var expiresAt: String?
  /// A non-consumable: never expires.
  public var isLifetime: Bool
  /// Auto-renew is on.
  public var willRenew: Bool
  /// Renewal failed but Apple's grace period keeps access.
  public var isInGracePeriod: Bool
  /// When a billing problem was detected, while it lasts, ISO 8601.
  public var billingIssueDetectedAt: String?
  /// When auto-renew was turned off, while it is off, ISO 8601.
  public var unsubscribedAt: String?
  /// Refunded.
  public var isRefund: Bool
  /// `free_trial`, `pay_as_you_go` or `pay_up_front` while an introductory offer runs.
  public var activeIntroductoryOfferType: String?

  /// Creates an access level.
  public init(
    id: String, isActive: Bool, vendorProductId: String, vendorTransactionId: String,
    vendorOriginalTransactionId: String, store: String = "app_store", activatedAt: String, renewedAt: String?,
    expiresAt: String?, isLifetime: Bool, willRenew: Bool, isInGracePeriod: Bool, billingIssueDetectedAt: String?,
    unsubscribedAt: String?, isRefund: Bool, activeIntroductoryOfferType: String?
  ) {
    self.id = id
    self.isActive = isActive
    self.vendorProductId = vendorProductId
    self.vendorTransactionId = vendorTransactionId
    self.vendorOriginalTransactionId = vendorOriginalTransactionId
    self.store = store
    self.activatedAt = activatedAt
    self.renewedAt = renewedAt
    self.expiresAt = expiresAt
    self.isLifetime = isLifetime
    self.willRenew = willRenew
    self.isInGracePeriod = isInGracePeriod
    self.billingIssueDetectedAt = billingIssueDetectedAt
    self.unsubscribedAt = unsubscribedAt
    self.isRefund = isRefund
    self.activeIntroductoryOfferType = activeIntroductoryOfferType
  }

  enum CodingKeys: String, CodingKey {
    case id, store
    case isActive = "is_active"
    case vendorProductId = "vendor_product_id"
    case vendorTransactionId = "vendor_transaction_id"
    case vendorOriginalTransactionId = "vendor_original_transaction_id"
    case activatedAt = "activated_at"
    case renewedAt = "renewed_at"
    case expiresAt = "expires_at"
    case isLifetime = "is_lifetime"
    case willRenew = "will_renew"
    case isInGracePeriod = "is_in_grace_period"
    case billingIssueDetectedAt = "billing_issue_detected_at"
    case unsubscribedAt = "unsubscribed_at"
    case isRefund = "is_refund"
    case activeIntroductoryOfferType = "active_introductory_offer_type"
  }
}

/// One auto-renewable subscription of a profile (`profile.subscriptions.pro_monthly`).
public struct SubscriptionPayload: Codable, Sendable, Hashable {
  public var vendorProductId: String
  public var vendorTransactionId: String
  public var vendorOriginalTransactionId: String
  public var store: String
  /// Its state now.
  public var state: SubscriptionState
  /// Whether it unlocks access now (active or in grace period).
  public var isActive: Bool
  public var activatedAt: String
  public var renewedAt: String?
  public var expiresAt: String?
  public var willRenew: Bool
  public var isInGracePeriod: Bool
  public var isInBillingRetry: Bool
  public var billingIssueDetectedAt: String?
  public var unsubscribedAt: String?
  public var isRefund: Bool
  /// `voluntary`, `billing_error`, `price_increase`, `product_unavailable`, `refund`, `other`.
  public var expirationReason: String?
  public var isSandbox: Bool
  public var isFamilyShared: Bool
  /// The current period is a free trial.
  public var isTrial: Bool
  public var activeIntroductoryOfferType: String?

  /// Creates a subscription.
  public init(
    vendorProductId: String, vendorTransactionId: String, vendorOriginalTransactionId: String,
    store: String = "app_store", state: SubscriptionState, isActive: Bool, activatedAt: String, renewedAt: String?,
    expiresAt: String?, willRenew: Bool, isInGracePeriod: Bool, isInBillingRetry: Bool,
    billingIssueDetectedAt: String?, unsubscribedAt: String?, isRefund: Bool, expirationReason: String?,
    isSandbox: Bool, isFamilyShared: Bool, isTrial: Bool, activeIntroductoryOfferType: String?
  ) {
    self.vendorProductId = vendorProductId
    self.vendorTransactionId = vendorTransactionId
    self.vendorOriginalTransactionId = vendorOriginalTransactionId
    self.store = store
    self.state = state
    self.isActive = isActive
    self.activatedAt = activatedAt
    self.renewedAt = renewedAt
    self.expiresAt = expiresAt
    self.willRenew = willRenew
    self.isInGracePeriod = isInGracePeriod
    self.isInBillingRetry = isInBillingRetry
    self.billingIssueDetectedAt = billingIssueDetectedAt
    self.unsubscribedAt = unsubscribedAt
    self.isRefund = isRefund
    self.expirationReason = expirationReason
    self.isSandbox = isSandbox
    self.isFamilyShared = isFamilyShared
    self.isTrial = isTrial
    self.activeIntroductoryOfferType = activeIntroductoryOfferType
  }

  enum CodingKeys: String, CodingKey {
    case store, state
    case vendorProductId = "vendor_product_id"
    case vendorTransactionId = "vendor_transaction_id"
    case vendorOriginalTransactionId = "vendor_original_transaction_id"
    case isActive = "is_active"
    case activatedAt = "activated_at"
    case renewedAt = "renewed_at"
    case expiresAt = "expires_at"
    case willRenew = "will_renew"
    case isInGracePeriod = "is_in_grace_period"
    case isInBillingRetry = "is_in_billing_retry"
    case billingIssueDetectedAt = "billing_issue_detected_at"
    case unsubscribedAt = "unsubscribed_at"
    case isRefund = "is_refund"
    case expirationReason = "expiration_reason"
    case isSandbox = "is_sandbox"
    case isFamilyShared = "is_family_shared"
    case isTrial = "is_trial"
    case activeIntroductoryOfferType = "active_introductory_offer_type"
  }
}

/// One purchase that is not an auto-renewable subscription (`profile.non_subscriptions.coins_100[0]`).
public struct NonSubscriptionPayload: Codable, Sendable, Hashable {
  public var vendorProductId: String
  public var vendorTransactionId: String
  public var store: String
  public var purchasedAt: String
  /// Consumables unlock nothing; non-consumables are lifetime access.
  public var isConsumable: Bool
  public var isRefund: Bool
  public var isSandbox: Bool

  /// Creates a purchase.
  public init(
    vendorProductId: String, vendorTransactionId: String, store: String = "app_store", purchasedAt: String,
    isConsumable: Bool, isRefund: Bool, isSandbox: Bool
  ) {
    self.vendorProductId = vendorProductId
    self.vendorTransactionId = vendorTransactionId
    self.store = store
    self.purchasedAt = purchasedAt
    self.isConsumable = isConsumable
    self.isRefund = isRefund
    self.isSandbox = isSandbox
  }

  enum CodingKeys: String, CodingKey {
    case store
    case vendorProductId = "vendor_product_id"
    case vendorTransactionId = "vendor_transaction_id"
    case purchasedAt = "purchased_at"
    case isConsumable = "is_consumable"
    case isRefund = "is_refund"
    case isSandbox = "is_sandbox"
  }
}

/// What a profile owns: access levels, subscriptions and other purchases.
public struct PurchasesPayload: Codable, Sendable, Hashable {
  /// Access levels by id.
  public var accessLevels: [String: AccessLevelPayload]
  /// Auto-renewable subscriptions by product id.
  public var subscriptions: [String: SubscriptionPayload]
  /// Other purchases by product id, oldest first.
  public var nonSubscriptions: [String: [NonSubscriptionPayload]]

  /// Nothing bought.
  public init(
    accessLevels: [String: AccessLevelPayload] = [:], subscriptions: [String: SubscriptionPayload] = [:],
    nonSubscriptions: [String: [NonSubscriptionPayload]] = [:]
  ) {
    self.accessLevels = accessLevels
    self.subscriptions = subscriptions
    self.nonSubscriptions = nonSubscriptions
  }

  enum CodingKeys: String, CodingKey {
    case accessLevels = "access_levels"
    case subscriptions
    case nonSubscriptions = "non_subscriptions"
  }
}

/// The answer to Apple's notification post.
public struct AppStoreNotificationAck: Codable, Sendable, Hashable {
  /// The notification's id.
  public var notificationUUID: String
  /// It had been received before; nothing changed.
  public var duplicate: Bool

  /// Creates an acknowledgement.
  public init(notificationUUID: String, duplicate: Bool) {
    self.notificationUUID = notificationUUID
    self.duplicate = duplicate
  }

  enum CodingKeys: String, CodingKey {
    case notificationUUID = "notification_uuid"
    case duplicate
  }
}
