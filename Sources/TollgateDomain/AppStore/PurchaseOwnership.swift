import Foundation
import TollgateSupport

/// Who owns a subscription (an `originalTransactionId`) after new App Store facts: the rules,
/// as pure functions of what is stored. The store reads the owners and writes the decision in
/// the transaction that records the facts.
public enum PurchaseOwnership {
  /// What to do with one subscription's owners.
  public enum Decision: Sendable, Hashable {
    /// Link `profile`, first removing `removing` (a transfer takes the purchase from them).
    case link(profile: String, removing: [String])
    /// Leave the owners as they are.
    case keep
    /// Nobody can be named yet: keep the facts unowned until a profile claims them.
    case unowned
  }

  /// The profile a new transaction is credited to: the one sending it (`claimant`), else its
  /// subscription's first owner, else the profile its `appAccountToken` names (when it exists).
  public static func purchaser(claimant: String?, owners: [String], tokenProfile: String?) -> String? {
    claimant ?? owners.first ?? tokenProfile
  }

  /// The owners of one subscription after facts arrive.
  ///
  /// - A claimant (the SDK of a profile sending a transaction or restoring) becomes an owner.
  ///   Other owners lose it with `transfer`, keep it too with `shared`; with `off` the claimant
  ///   gets nothing while another profile owns it.
  /// - Without a claimant (a notification), an unowned subscription goes to the profile its
  ///   `appAccountToken` names (the SDK passes the profile id), else stays unowned; an owned one
  ///   keeps its owners.
  public static func decide(
    claimant: String?, sharing: AccessLevelSharing, owners: [String], tokenProfile: String?
  ) -> Decision {
    if let claimant {
      let others = owners.filter { $0 != claimant }
      switch (sharing, others.isEmpty) {
      case (.off, false): return .keep
      case (.transfer, false): return .link(profile: claimant, removing: others)
      default: return .link(profile: claimant, removing: [])
      }
    }
    guard owners.isEmpty else { return .keep }
    if let tokenProfile { return .link(profile: tokenProfile, removing: []) }
    return .unowned
  }
}

/// Which webhook events a transaction makes, as pure functions of what was stored before.
package enum TransactionEvents {
  /// A transaction stored for the first time: a purchase of its kind (started, trial,
  /// renewed, a non-subscription), and a refund when it arrives already refunded.
  package static func firstStored(_ payload: TransactionPayload, credit: PurchaseAttribution) -> [PendingWebhookEvent] {
    let type: WebhookEventType =
      payload.type != TransactionPayload.autoRenewable
      ? .nonSubscriptionPurchased
      : !payload.isPurchase ? .subscriptionRenewed : payload.isFreeTrial ? .trialStarted : .subscriptionStarted
    var events = [
      PendingWebhookEvent(
        type: type, profileId: credit.profileId ?? "", data: WebhookData.transaction(payload, credit: credit))
    ]
    if payload.revocationDate != nil {
      events.append(
        .init(type: .refund, profileId: credit.profileId ?? "", data: WebhookData.transaction(payload, credit: credit)))
    }
    return events
  }

  /// Whether a newly signed version of a stored transaction replaces it: Apple signs again
  /// when it refunds or marks an upgrade, and the newest signature is the truth.
  package static func replaces(_ new: TransactionPayload, storedSignedAt: Double) -> Bool {
    Double(new.signedDate) / 1000 > storedSignedAt
  }

  /// A stored transaction signed again: a refund when it became refunded.
  package static func resigned(old: TransactionPayload, new: TransactionPayload, credit: PurchaseAttribution)
    -> [PendingWebhookEvent]
  {
    guard old.revocationDate == nil, new.revocationDate != nil else { return [] }
    return [.init(type: .refund, profileId: credit.profileId ?? "", data: WebhookData.transaction(new, credit: credit))]
  }
}
