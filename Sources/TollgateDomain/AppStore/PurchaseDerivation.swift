import Foundation
import TollgateAPI
import TollgateSupport

/// Derives subscription states and access levels from stored facts. A pure function of the
/// facts, the configured levels and the time: facts are ordered by Apple's `signedDate` (and
/// transactions by purchase date), never by arrival, so out-of-order and repeated deliveries
/// give the same answer as the orderly one.
public enum PurchaseDerivation {
  public static func derive(_ history: PurchaseHistory, levels: [AccessLevelDefinition], now: Date)
    -> ProfilePurchases
  {
    var result = ProfilePurchases()
    if !history.transactions.isEmpty || !history.grants.isEmpty { result.levelsKey = key(levels) }
    let nowMilliseconds = Int64(now.timeIntervalSince1970 * 1000)
    let groups = Dictionary(grouping: history.transactions, by: \.originalTransactionId)
    var subscriptions: [SubscriptionPayload] = []
    var nonSubscriptions: [NonSubscriptionPayload] = []
    var nonRenewing: [TransactionPayload] = []
    // When active subscriptions lapse by the clock alone (expiry, end of grace period).
    var lapses: [Int64] = []
    for (original, transactions) in groups.sorted(by: { $0.key < $1.key }) {
      let ordered = transactions.sorted { ($0.purchaseDate, $0.signedDate) < ($1.purchaseDate, $1.signedDate) }
      if ordered.contains(where: { $0.type == TransactionPayload.autoRenewable }) {
        let notes = history.notifications.filter { $0.originalTransactionId == original }
          .sorted { $0.signedDate < $1.signedDate }
        let (subscription, lapsesAt) = self.subscription(
          ordered.filter { $0.type == TransactionPayload.autoRenewable }, notes, now: nowMilliseconds)
        subscriptions.append(subscription)
        if let lapsesAt { lapses.append(lapsesAt) }
      }
      for transaction in ordered where transaction.type != TransactionPayload.autoRenewable {
        nonSubscriptions.append(
          NonSubscriptionPayload(
            vendorProductId: transaction.productId, vendorTransactionId: transaction.transactionId,
            purchasedAt: iso(transaction.purchaseDate), isConsumable: transaction.type == TransactionPayload.consumable,
            isRefund: transaction.revocationDate != nil, isSandbox: transaction.environment != "Production"))
        if transaction.type != TransactionPayload.consumable { nonRenewing.append(transaction) }
      }
    }
    result.purchaseCount =
      Set(history.transactions.filter { $0.transactionReason != "RENEWAL" }.map(\.transactionId)).count
    for subscription in subscriptions {
      // One entry per product: the most relevant subscription of that product.
      if let existing = result.payload.subscriptions[subscription.vendorProductId],
        rank(existing) >= rank(subscription)
      {
        continue
      }
      result.payload.subscriptions[subscription.vendorProductId] = subscription
    }
    for purchase in nonSubscriptions {
      result.payload.nonSubscriptions[purchase.vendorProductId, default: []].append(purchase)
    }
    result.primarySubscription = subscriptions.max { rank($0) < rank($1) }

    for level in levels {
      var candidates: [(AccessLevelPayload, rank: (Int, String))] = []
      for subscription in subscriptions where level.products.contains(subscription.vendorProductId) {
        let access = AccessLevelPayload(
          id: level.id, isActive: subscription.isActive, vendorProductId: subscription.vendorProductId,
          vendorTransactionId: subscription.vendorTransactionId,
          vendorOriginalTransactionId: subscription.vendorOriginalTransactionId, activatedAt: subscription.activatedAt,
          renewedAt: subscription.renewedAt, expiresAt: subscription.expiresAt, isLifetime: false,
          willRenew: subscription.willRenew, isInGracePeriod: subscription.isInGracePeriod,
          billingIssueDetectedAt: subscription.billingIssueDetectedAt, unsubscribedAt: subscription.unsubscribedAt,
          isRefund: subscription.isRefund, activeIntroductoryOfferType: subscription.activeIntroductoryOfferType)
        candidates.append((access, rank(subscription)))
      }
      for transaction in nonRenewing where level.products.contains(transaction.productId) {
        let refunded = transaction.revocationDate != nil
        let lifetime = transaction.type == TransactionPayload.nonConsumable
        let expires = lifetime ? nil : transaction.expiresDate
        let active = !refunded && (expires.map { $0 > nowMilliseconds } ?? true)
        let access = AccessLevelPayload(
          id: level.id, isActive: active, vendorProductId: transaction.productId,
          vendorTransactionId: transaction.transactionId,
          vendorOriginalTransactionId: transaction.originalTransactionId,
          activatedAt: iso(transaction.purchaseDate), renewedAt: nil, expiresAt: expires.map(iso),
          isLifetime: lifetime, willRenew: false, isInGracePeriod: false, billingIssueDetectedAt: nil,
          unsubscribedAt: nil, isRefund: refunded, activeIntroductoryOfferType: nil)
        // Lifetime beats any subscription; then the later expiry.
        candidates.append((access, (active ? (lifetime ? 3 : 2) : 0, expires.map(iso) ?? "~")))
      }
      // A grant by hand ranks as a purchase would: lifetime first, then the later end. A
      // revoked one stays visible (inactive) only while nothing else names the level.
      for grant in history.grants where grant.accessLevel == level.id {
        let active = grant.isActive(at: now)
        let ends = grant.expiresAt.map { Timestamp.string($0) }
        candidates.append(
          (grant.accessLevel(now: now), (active ? (ends == nil ? 3 : 2) : 0, active ? ends ?? "~" : "")))
      }
      if let best = candidates.max(by: { $0.rank < $1.rank }) {
        result.payload.accessLevels[level.id] = best.0
      }
    }
    lapses += nonRenewing.compactMap { $0.revocationDate == nil ? $0.expiresDate : nil }.filter { $0 > nowMilliseconds }
    lapses += history.grants.compactMap { grant in
      grant.isActive(at: now) ? grant.expiresAt.map { Int64($0.timeIntervalSince1970 * 1000) } : nil
    }
    result.nextChangeAt = lapses.min().map { Date(timeIntervalSince1970: Double($0) / 1000) }
    return result
  }

  /// Identifies an access levels configuration: purchases derived under another one are
  /// derived again when read.
  public static func key(_ levels: [AccessLevelDefinition]) -> String {
    levels.map { "\($0.id)=\($0.products.sorted().joined(separator: ","))" }.sorted().joined(separator: ";")
  }

  /// Orders subscriptions by relevance: active first, then the latest expiry.
  static func rank(_ subscription: SubscriptionPayload) -> (Int, String) {
    (subscription.isActive ? 2 : 0, subscription.expiresAt ?? "")
  }

  /// The state of one auto-renewable subscription (one `originalTransactionId`).
  /// Also returns when it lapses by the clock alone, while it is active.
  static func subscription(_ transactions: [TransactionPayload], _ notes: [NotificationFact], now: Int64)
    -> (SubscriptionPayload, lapsesAt: Int64?)
  {
    let first = transactions[0]
    // An upgrade within the group marks the old transaction `isUpgraded`; the new one rules.
    let current = transactions.last { $0.isUpgraded != true } ?? transactions[transactions.count - 1]
    let renewal = notes.compactMap(\.renewal).max { $0.signedDate < $1.signedDate }
    let revoked = current.revocationDate != nil
    let expires = current.expiresDate ?? 0
    let inRetry = renewal?.isInBillingRetryPeriod == true
    let graceUntil = renewal?.gracePeriodExpiresDate ?? 0
    let state: SubscriptionState =
      revoked
      ? .revoked
      : expires > now ? .active : inRetry && graceUntil > now ? .gracePeriod : inRetry ? .billingRetry : .expired
    let isActive = state == .active || state == .gracePeriod
    let willRenew: Bool = {
      guard !revoked, state != .expired else { return false }
      return renewal.map { $0.autoRenewStatus == 1 } ?? true
    }()
    // A billing problem lasts from the first failure after the current period began.
    let billingIssue: Int64? = {
      guard state == .gracePeriod || state == .billingRetry else { return nil }
      return notes.first { $0.type == "DID_FAIL_TO_RENEW" && $0.signedDate >= current.purchaseDate }?.signedDate
        ?? renewal?.signedDate
    }()
    let unsubscribed: Int64? = {
      guard !willRenew, !revoked else { return nil }
      return notes.last { $0.type == "DID_CHANGE_RENEWAL_STATUS" && $0.subtype == "AUTO_RENEW_DISABLED" }?.signedDate
        ?? (renewal?.autoRenewStatus == 0 ? renewal?.signedDate : nil)
    }()
    let refundNote = notes.last { $0.type == "REFUND" || $0.type == "REVOKE" }
    let introductory =
      current.offerType == 1 && isActive ? current.offerDiscountType.map { $0.lowercased() } : nil
    let lapsesAt: Int64? = state == .active ? expires : state == .gracePeriod ? graceUntil : nil
    let payload = SubscriptionPayload(
      vendorProductId: current.productId, vendorTransactionId: current.transactionId,
      vendorOriginalTransactionId: current.originalTransactionId, state: state, isActive: isActive,
      activatedAt: iso(current.originalPurchaseDate ?? first.purchaseDate),
      renewedAt: current.transactionId == current.originalTransactionId ? nil : iso(current.purchaseDate),
      expiresAt: current.expiresDate.map(iso), willRenew: willRenew, isInGracePeriod: state == .gracePeriod,
      isInBillingRetry: state == .billingRetry || state == .gracePeriod, billingIssueDetectedAt: billingIssue.map(iso),
      unsubscribedAt: unsubscribed.map(iso), isRefund: revoked && refundNote?.type != "REVOKE",
      expirationReason: state == .revoked ? "refund" : state == .expired ? expirationReason(renewal, notes) : nil,
      isSandbox: current.environment != "Production", isFamilyShared: current.inAppOwnershipType == "FAMILY_SHARED",
      isTrial: introductory == "free_trial", activeIntroductoryOfferType: introductory)
    return (payload, lapsesAt)
  }

  /// Apple's `expirationIntent`, else the `EXPIRED` notification's subtype.
  static func expirationReason(_ renewal: RenewalInfoPayload?, _ notes: [NotificationFact]) -> String {
    switch renewal?.expirationIntent {
    case 1?: return "voluntary"
    case 2?: return "billing_error"
    case 3?: return "price_increase"
    case 4?: return "product_unavailable"
    default: break
    }
    switch notes.last(where: { $0.type == "EXPIRED" })?.subtype {
    case "VOLUNTARY"?: return "voluntary"
    case "BILLING_RETRY"?: return "billing_error"
    case "PRICE_INCREASE"?: return "price_increase"
    case "PRODUCT_NOT_FOR_SALE"?: return "product_unavailable"
    default: return "other"
    }
  }

  static func iso(_ milliseconds: Int64) -> String {
    Timestamp.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }
}
