import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Records verified App Store facts: in one unit of work it reads the rows, asks the domain's
/// rules (`PurchaseCredit`, `PurchaseOwnership`, `TransactionEvents`, the derivation) what
/// they mean, and writes the decisions. The SDK's transactions, Apple's notifications and an
/// expiry coming due all go through here.
package struct PurchaseRecorder {
  package let purchases: any PurchaseRepository

  package init(_ purchases: any PurchaseRepository) {
    self.purchases = purchases
  }

  /// Records a batch of facts: the notification (nothing at all when its `notificationUUID`
  /// was recorded before), each transaction (one row per `transactionId`, the latest
  /// `signedDate` wins), the owner claim; every profile that owns (or owned) these
  /// subscriptions gets its purchases re-derived with `derive`, and a new version when they
  /// changed. Webhook events go to the outbox in the same transaction.
  package func record(
    appId: Int64, _ facts: AppStoreFacts, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome {
    try purchases.purchases(appId: appId) { rows in
      // One transaction asks each question once: reading ahead would only add statements.
      if facts.transactions.count > 1 {
        try rows.prefetch(facts.transactions.map(\.payload), profiles: facts.claimant.map { [$0] } ?? [])
      }
      return try record(facts, rows, at: at, derive: derive)
    }
  }

  /// Records many batches of facts in one unit of work (an import's pages for many
  /// customers: one commit, not one per customer); nothing is kept if one fails.
  package func record(
    appId: Int64, _ batches: [AppStoreFacts], at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> [AppStoreFactsOutcome] {
    try purchases.purchases(appId: appId) { rows in
      try rows.prefetch(batches.flatMap { $0.transactions.map(\.payload) }, profiles: batches.compactMap(\.claimant))
      guard batches.allSatisfy(Self.recordableTogether) else {
        return try batches.map { try record($0, rows, at: at, derive: derive) }
      }
      return try recordTogether(batches, rows, at: at, derive: derive)
    }
  }

  /// Facts whose steps may run for a whole unit at once: transactions a claimant brought, with
  /// no notification, refund request or webhook (an import's pages). Their transactions are
  /// credited to the claimant whoever owns them, so storing them does not wait on ownership.
  private static func recordableTogether(_ facts: AppStoreFacts) -> Bool {
    facts.claimant != nil && facts.notification == nil && facts.refundRequest == nil && facts.webhooks.isEmpty
  }

  /// `record(_:_:at:derive:)` for many customers, each step once for the whole unit: every
  /// transaction stored, every subscription's rollups recomputed, each batch's owners decided in
  /// order, every affected profile derived once. The rows come out as recording the batches
  /// one after the other leaves them (rollups and derivations are recomputed from the stored
  /// rows); the reads are a few statements for the unit instead of a few per customer.
  private func recordTogether(
    _ batches: [AppStoreFacts], _ rows: any PurchaseUnitOfWork, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> [AppStoreFactsOutcome] {
    var originals: [[String]] = []
    for facts in batches {
      var ofBatch: [String] = []
      for stored in facts.transactions {
        _ = try store(stored, buyer: facts.claimant, rows, at: at)
        if !ofBatch.contains(stored.payload.originalTransactionId) {
          ofBatch.append(stored.payload.originalTransactionId)
        }
      }
      originals.append(ofBatch)
    }
    var rolled: [String] = []
    var seen: Set<String> = []
    for original in originals.joined() where seen.insert(original).inserted { rolled.append(original) }
    try rows.rollSubscriptions(rolled)
    var affected: [Set<String>] = []
    var outcomes = batches.map { _ in AppStoreFactsOutcome() }
    for (index, facts) in batches.enumerated() {
      try Self.addUnowned(facts, to: &originals[index], rows)
      var profiles: Set<String> = []
      for original in originals[index] {
        let (touched, unowned) = try Self.settleOwners(of: original, facts, rows, at: at) { _ in nil }
        profiles.formUnion(touched)
        if unowned { outcomes[index].unowned.append(original) }
      }
      if let claimant = facts.claimant { profiles.insert(claimant) }
      affected.append(profiles)
    }
    var changed: [String: ProfileRecord] = [:]
    let everyone = affected.reduce(into: Set<String>()) { $0.formUnion($1) }.sorted()
    try rows.readingAhead(histories: everyone.count > 1 ? everyone : []) {
      for profileId in everyone {
        if let (_, record) = try Self.rederive(profileId, rows, at: at, derive: derive) { changed[profileId] = record }
      }
    }
    for (index, facts) in batches.enumerated() {
      outcomes[index].changed = affected[index].sorted().compactMap { changed[$0] }
      if let claimant = facts.claimant {
        outcomes[index].claimant = try changed[claimant] ?? rows.profile(claimant)
      }
    }
    return outcomes
  }

  private func record(
    _ facts: AppStoreFacts, _ rows: any PurchaseUnitOfWork, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome {
    var outcome = AppStoreFactsOutcome()
    if let notification = facts.notification, try !rows.insert(notification, at: at) {
      outcome.duplicate = true
      return outcome
    }
    if let request = facts.refundRequest { _ = try rows.insert(request) }
    // Apple's answer to a refund request closes it.
    let closing = ["REFUND": "refunded", "REFUND_DECLINED": "declined"]
    if let type = facts.notification?.fact.type, let outcome = closing[type] {
      for stored in facts.transactions {
        try rows.closeRefundRequests(transactionId: stored.payload.transactionId, outcome: outcome, at: at)
      }
    }
    var originals: [String] = []
    var events: [PendingWebhookEvent] = []
    for stored in facts.transactions {
      let original = stored.payload.originalTransactionId
      let buyer = try facts.claimant ?? Self.purchaser(of: stored.payload, rows)
      events += try store(stored, buyer: buyer, rows, at: at)
      if !originals.contains(original) { originals.append(original) }
    }
    if let original = facts.notification?.fact.originalTransactionId, !originals.contains(original) {
      originals.append(original)
    }
    try rows.rollSubscriptions(originals)
    // Facts kept unowned (a notification before the SDK's transaction) join a claimant
    // that bought under the same appAccountToken.
    if facts.claimant != nil { try Self.addUnowned(facts, to: &originals, rows) }
    var affected: Set<String> = []
    for original in originals {
      let (touched, unowned) = try Self.settleOwners(of: original, facts, rows, at: at) { owners in
        // Apple's notification names the profile through the appAccountToken the SDK set.
        let token = facts.transactions.first { $0.payload.originalTransactionId == original }?.payload.appAccountToken
        return facts.claimant == nil && owners.isEmpty ? try Self.existingProfile(token, rows) : nil
      }
      affected.formUnion(touched)
      if unowned { outcome.unowned.append(original) }
    }
    if let claimant = facts.claimant { affected.insert(claimant) }
    // Many profiles' histories are read in a few statements; one profile's, as it is asked.
    try rows.readingAhead(histories: affected.count > 1 ? affected.sorted() : []) {
      for profileId in affected.sorted() {
        if let (before, changed) = try Self.rederive(profileId, rows, at: at, derive: derive) {
          outcome.changed.append(changed)
          // With no webhook to hear them (an import's pages, an app without webhooks) the events
          // are not made: their access levels' JSON was a seventh of recording an imported history.
          if !facts.webhooks.isEmpty {
            events += WebhookData.changes(profileId: profileId, from: before, to: changed.purchases)
          }
        }
      }
    }
    try rows.enqueue(events, to: facts.webhooks, at: at)
    if let claimant = facts.claimant {
      outcome.claimant = try outcome.changed.first { $0.id == claimant } ?? rows.profile(claimant)
    }
    return outcome
  }

  /// Appends to `originals` the subscriptions kept unowned under the appAccountTokens of
  /// `facts`' transactions (a notification came before the SDK's transaction).
  private static func addUnowned(
    _ facts: AppStoreFacts, to originals: inout [String], _ rows: any PurchaseUnitOfWork
  ) throws {
    let tokens = Set(facts.transactions.compactMap { $0.payload.appAccountToken?.lowercased() })
    for token in tokens.sorted() {
      for original in try rows.unownedSubscriptions(token: token) where !originals.contains(original) {
        originals.append(original)
      }
    }
  }

  /// Decides a subscription's owners (`PurchaseOwnership`, given the profile its token names
  /// when asked with the owners read) and writes the decision: the profiles it touches, and
  /// whether it stays unowned.
  private static func settleOwners(
    of original: String, _ facts: AppStoreFacts, _ rows: any PurchaseUnitOfWork, at: Date,
    tokenProfile: ([String]) throws -> String?
  ) throws -> (touched: Set<String>, unowned: Bool) {
    let owners = try rows.owners(of: original)
    var touched = Set(owners)
    switch PurchaseOwnership.decide(
      claimant: facts.claimant, sharing: facts.sharing, owners: owners, tokenProfile: try tokenProfile(owners))
    {
    case .link(let profileId, let removing):
      for other in removing { try rows.unlink(original, from: other) }
      try rows.link(original, to: profileId, at: at)
      touched.insert(profileId)
    case .keep: break
    case .unowned: return (touched, true)
    }
    return (touched, false)
  }

  /// Re-derives one profile's purchases (an expiry came due, access levels reconfigured);
  /// returns it when they changed, with the change's webhook events enqueued.
  package func rederive(
    appId: Int64, profileId: String, at: Date, webhooks: [WebhookConfig], derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> ProfileRecord? {
    try purchases.purchases(appId: appId) { rows in
      guard let (before, changed) = try Self.rederive(profileId, rows, at: at, derive: derive) else { return nil }
      try rows.enqueue(
        WebhookData.changes(profileId: profileId, from: before, to: changed.purchases), to: webhooks, at: at)
      return changed
    }
  }

  /// Gives a profile an access level by hand and derives its purchases again; the grant's
  /// `access_level.granted` event and the change's events go to the outbox with it. Nil when
  /// the profile does not exist.
  package func grant(
    appId: Int64, profileId: String, accessLevel: String, expiresAt: Date?, reason: String, by actor: String,
    at: Date, webhooks: [WebhookConfig], derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> (AccessGrant, ProfileRecord)? {
    try purchases.purchases(appId: appId) { rows in
      guard let locked = try rows.lockedProfile(profileId) else { return nil }
      let grant = try rows.insertGrant(
        profileId: profileId, accessLevel: accessLevel, expiresAt: expiresAt, reason: reason, by: actor, at: at)
      var events = [
        PendingWebhookEvent(type: .accessLevelGranted, profileId: profileId, data: WebhookData.grant(grant))
      ]
      var profile = locked
      if let (before, changed) = try Self.rederive(profileId, rows, at: at, derive: derive) {
        events += WebhookData.changes(profileId: profileId, from: before, to: changed.purchases)
        profile = changed
      }
      try rows.enqueue(events, to: webhooks, at: at)
      return (grant, profile)
    }
  }

  /// Takes back the standing hand-given grants of an access level; purchases keep it if they
  /// unlock it. Nil when the profile does not exist; no grants when none stood.
  package func revoke(
    appId: Int64, profileId: String, accessLevel: String, by actor: String, at: Date, webhooks: [WebhookConfig],
    derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> ([AccessGrant], ProfileRecord)? {
    try purchases.purchases(appId: appId) { rows in
      guard let locked = try rows.lockedProfile(profileId) else { return nil }
      let revoked = try rows.revokeGrants(profileId: profileId, accessLevel: accessLevel, by: actor, at: at)
      guard !revoked.isEmpty else { return ([], locked) }
      var events = revoked.map {
        PendingWebhookEvent(type: .accessLevelRevoked, profileId: profileId, data: WebhookData.grant($0))
      }
      var profile = locked
      if let (before, changed) = try Self.rederive(profileId, rows, at: at, derive: derive) {
        events += WebhookData.changes(profileId: profileId, from: before, to: changed.purchases)
        profile = changed
      }
      try rows.enqueue(events, to: webhooks, at: at)
      return (revoked, profile)
    }
  }

  /// Stores one transaction: first seen, it gets its credit and its purchase events; a newer
  /// signed version replaces the stored one (a refund, an upgrade mark) and the rollups follow.
  private func store(_ stored: StoredTransaction, buyer: String?, _ rows: any PurchaseUnitOfWork, at: Date) throws
    -> [PendingWebhookEvent]
  {
    let payload = stored.payload
    if let expires = payload.expiresDate {
      // Reconciliation asks Apple about a subscription whose period ended with no fact since.
      try rows.noteSubscriptionEnd(
        payload.originalTransactionId, environment: payload.environment,
        periodEnd: Date(timeIntervalSince1970: Double(expires) / 1000))
    }
    let credit = try PurchaseCredit.of(
      payload, namedVariation: stored.variationId, owned: stored.owned, buyer: buyer,
      subscription: try rows.subscriptionCredit(of: payload.originalTransactionId, excluding: payload.transactionId),
      lastShown: { from, through in try buyer.flatMap { try rows.lastShown(to: $0, from: from, through: through) } })
    if try rows.insert(stored, credit: credit, at: at) {
      try rows.rollTransaction(old: nil, new: payload, credit: credit)
      return TransactionEvents.firstStored(payload, credit: credit)
    }
    guard let existing = try rows.storedTransaction(payload.transactionId) else {
      throw StoreError.database("transaction \(payload.transactionId) vanished inside its transaction")
    }
    var events: [PendingWebhookEvent] = []
    if TransactionEvents.replaces(payload, storedSignedAt: existing.signedAt) {
      try rows.replace(stored)
      try rows.rollTransaction(old: existing.payload, new: payload, credit: existing.credit)
      events += TransactionEvents.resigned(old: existing.payload, new: payload, credit: existing.credit)
    }
    if existing.variationId == nil, let variation = stored.variationId {
      // The SDK names the variation; a notification that came first could not.
      try rows.name(variation: variation, of: payload.transactionId)
    }
    return events
  }

  /// The profile a transaction without a claimant is credited to (`PurchaseOwnership.purchaser`).
  private static func purchaser(of payload: TransactionPayload, _ rows: any PurchaseUnitOfWork) throws -> String? {
    PurchaseOwnership.purchaser(
      claimant: nil, owners: try rows.owners(of: payload.originalTransactionId),
      tokenProfile: try existingProfile(payload.appAccountToken, rows))
  }

  /// The profile an appAccountToken names, when it exists.
  private static func existingProfile(_ token: String?, _ rows: any PurchaseUnitOfWork) throws -> String? {
    guard let token = token?.lowercased(), try rows.profileExists(token) else { return nil }
    return token
  }

  /// Derives a profile's purchases from every fact of every subscription it owns and saves
  /// them, with a new version, when they changed.
  private static func rederive(
    _ profileId: String, _ rows: any PurchaseUnitOfWork, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> (before: ProfilePurchases, after: ProfileRecord)? {
    guard var profile = try rows.lockedProfile(profileId) else { return nil }
    let purchases = derive(try rows.history(of: profileId))
    guard purchases != profile.purchases else { return nil }
    let before = profile.purchases
    profile.purchases = purchases
    profile.version += 1
    profile.updatedAt = at
    try rows.save(profile)
    return (before, profile)
  }
}
