import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

extension RelationalStore {
  public func recordAppStoreFacts(
    appId: Int64, _ facts: AppStoreFacts, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome {
    let outcome = try recordFacts(appId: appId, facts, at: at, derive: derive)
    profileChanges.announce(appId: appId, outcome.changed.map(\.id))
    return outcome
  }

  private func recordFacts(
    appId: Int64, _ facts: AppStoreFacts, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome {
    try with { db in
      try db.transaction { () throws -> AppStoreFactsOutcome in
        var outcome = AppStoreFactsOutcome()
        let now = SQLValue.real(at.timeIntervalSince1970)
        if let notification = facts.notification {
          try db.query(
            """
            INSERT INTO app_store_notifications (app_id, notification_uuid, notification_type, subtype,
            original_transaction_id, signed_at, fact, payload, jws, received_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """,
            [
              .integer(appId), .text(notification.uuid), .text(notification.fact.type),
              notification.fact.subtype.map(SQLValue.text) ?? .null,
              notification.fact.originalTransactionId.map(SQLValue.text) ?? .null,
              .real(Double(notification.fact.signedDate) / 1000), Self.json(notification.fact),
              .text(String(decoding: notification.payload, as: UTF8.self)), .text(notification.jws), now,
            ])
          guard db.changes == 1 else {
            outcome.duplicate = true
            return outcome
          }
        }
        var originals: [String] = []
        var events: [PendingWebhookEvent] = []
        for stored in facts.transactions {
          let profileId = try Self.purchaser(db, appId: appId, stored.payload, claimant: facts.claimant)
          events += try upsert(db, appId: appId, stored, profileId: profileId, at: at)
          if !originals.contains(stored.payload.originalTransactionId) {
            originals.append(stored.payload.originalTransactionId)
          }
        }
        if let original = facts.notification?.fact.originalTransactionId, !originals.contains(original) {
          originals.append(original)
        }
        let pending = PendingRollups()
        for original in originals {
          try Self.rollTrial(db, appId: appId, original: original)
          try Self.rollSubscription(db, appId: appId, original: original, pending: pending)
        }
        try Self.rollCohorts(db, appId: appId, originals: originals, pending: pending)
        try Self.write(pending, db, appId: appId)
        // Facts kept unowned (a notification before the SDK's transaction) join a claimant
        // that bought under the same appAccountToken.
        if facts.claimant != nil {
          let tokens = Set(facts.transactions.compactMap { $0.payload.appAccountToken?.lowercased() })
          for token in tokens.sorted() {
            let rows = try db.query(
              """
              SELECT DISTINCT t.original_transaction_id FROM app_store_transactions t
              WHERE t.app_id = ? AND t.app_account_token = ? AND NOT EXISTS (SELECT 1 FROM app_store_owners o
              WHERE o.app_id = t.app_id AND o.original_transaction_id = t.original_transaction_id)
              """, [.integer(appId), .text(token)])
            for original in try rows.map({ try $0.decode("original_transaction_id", as: String.self) })
            where !originals.contains(original) {
              originals.append(original)
            }
          }
        }
        var affected: Set<String> = []
        for original in originals {
          let owners = try Self.owners(db, appId: appId, original: original)
          affected.formUnion(owners)
          // Apple's notification names the profile through the appAccountToken the SDK set.
          let token = facts.transactions.first { $0.payload.originalTransactionId == original }?.payload
            .appAccountToken
          let decision = PurchaseOwnership.decide(
            claimant: facts.claimant, sharing: facts.sharing, owners: owners,
            tokenProfile: facts.claimant == nil && owners.isEmpty
              ? try Self.existingProfile(db, appId: appId, token) : nil)
          switch decision {
          case .link(let profileId, let removing):
            for other in removing {
              try db.query(
                "DELETE FROM app_store_owners WHERE app_id = ? AND original_transaction_id = ? AND profile_id = ?",
                [.integer(appId), .text(original), .text(other)])
            }
            try Self.link(db, appId: appId, original: original, profileId: profileId, at: at)
            affected.insert(profileId)
          case .keep: break
          case .unowned: outcome.unowned.append(original)
          }
        }
        if let claimant = facts.claimant { affected.insert(claimant) }
        for profileId in affected.sorted() {
          if let (before, changed) = try rederive(db, appId: appId, profileId: profileId, at: at, derive: derive) {
            outcome.changed.append(changed)
            events += WebhookData.changes(profileId: profileId, from: before, to: changed.purchases)
          }
        }
        try Self.enqueueWebhookEvents(db, appId: appId, events, to: facts.webhooks, at: at)
        if let claimant = facts.claimant {
          outcome.claimant =
            try outcome.changed.first { $0.id == claimant } ?? Self.profile(db, appId: appId, id: claimant)
        }
        return outcome
      }
    }
  }

  public func rederivePurchases(
    appId: Int64, profileId: String, at: Date, webhooks: [WebhookConfig], derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> ProfileRecord? {
    defer { profileChanges.announce(appId: appId, [profileId]) }
    return try with { db in
      try db.transaction {
        guard let (before, changed) = try rederive(db, appId: appId, profileId: profileId, at: at, derive: derive)
        else { return nil }
        try Self.enqueueWebhookEvents(
          db, appId: appId, WebhookData.changes(profileId: profileId, from: before, to: changed.purchases),
          to: webhooks, at: at)
        return changed
      }
    }
  }

  public func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction] {
    try with { db in
      try db.query(
        """
        SELECT payload, jws, variation_id, attr_variation FROM app_store_transactions WHERE app_id = ?
        AND original_transaction_id IN
        (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?) ORDER BY signed_at DESC
        """, [.integer(appId), .integer(appId), .text(profileId)]
      ).map { row in
        let credited = try row.decode("attr_variation", as: String.self)
        return StoredTransaction(
          payload: try StoredPayloads.shared.payload(row),
          jws: try row.decode("jws"), variationId: try row.decode("variation_id"),
          creditedVariationId: credited.isEmpty ? nil : credited)
      }
    }
  }

  /// Derives the profile's purchases from every fact of every subscription it owns and
  /// saves them, with a new version, when they changed.
  private func rederive(
    _ db: any SQLConnection, appId: Int64, profileId: String, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> (before: ProfilePurchases, after: ProfileRecord)? {
    guard var profile = try Self.profile(db, appId: appId, id: profileId, lock: dialect.lockRow) else { return nil }
    let key: [SQLValue] = [.integer(appId), .text(profileId)]
    let decoder = WireCoding.decoder
    let transactions = try db.query(
      """
      SELECT payload FROM app_store_transactions WHERE app_id = ? AND original_transaction_id IN
      (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?)
      """, [key[0]] + key
    ).map { try StoredPayloads.shared.payload($0) }
    let notifications = try db.query(
      """
      SELECT fact FROM app_store_notifications WHERE app_id = ? AND original_transaction_id IN
      (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?)
      """, [key[0]] + key
    ).map { try decoder.decode(NotificationFact.self, from: try $0.decode("fact")) }
    let purchases = derive(PurchaseHistory(transactions: transactions, notifications: notifications))
    guard purchases != profile.purchases else { return nil }
    let before = profile.purchases
    profile.purchases = purchases
    profile.version += 1
    profile.updatedAt = at
    try save(db, appId: appId, profile)
    return (before, profile)
  }

  /// One row per transaction id: a newer signed version (a refund, an upgrade mark) replaces
  /// it. Credit for the purchase is decided when it is first stored; the rollups follow.
  @discardableResult
  private func upsert(
    _ db: any SQLConnection, appId: Int64, _ stored: StoredTransaction, profileId: String?, at: Date
  ) throws -> [PendingWebhookEvent] {
    let payload = stored.payload
    let signedAt = Double(payload.signedDate) / 1000
    let credit = try Self.attribution(db, appId: appId, stored, profileId: profileId)
    // Insert first: of two instances storing the same transaction at once, one inserts and the
    // other (after waiting for it) takes the update path.
    try db.query(
      """
      INSERT INTO app_store_transactions (app_id, transaction_id, original_transaction_id, product_id,
      app_account_token, signed_at, variation_id, payload, jws, received_at, attr_placement, attr_audience,
      attr_variation, attr_profile) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
      """,
      [
        .integer(appId), .text(payload.transactionId), .text(payload.originalTransactionId), .text(payload.productId),
        payload.appAccountToken.map { SQLValue.text($0.lowercased()) } ?? .null, .real(signedAt),
        stored.variationId.map(SQLValue.text) ?? .null, Self.json(payload), .text(stored.jws),
        .real(at.timeIntervalSince1970),
        .text(credit.placementId), .text(credit.audienceId), .text(credit.variationId),
        credit.profileId.map(SQLValue.text) ?? .null,
      ])
    if db.changes == 1 {
      try Self.rollTransaction(db, appId: appId, old: nil, new: payload, credit)
      return TransactionEvents.firstStored(payload, credit: credit)
    }
    guard
      let existing = try db.query(
        "SELECT payload, signed_at, attr_placement, attr_audience, attr_variation, attr_profile, variation_id "
          + "FROM app_store_transactions WHERE app_id = ? AND transaction_id = ?\(dialect.lockRow)",
        [.integer(appId), .text(payload.transactionId)]
      ).first
    else { throw StoreError.database("transaction \(payload.transactionId) vanished inside its transaction") }
    var events: [PendingWebhookEvent] = []
    if TransactionEvents.replaces(payload, storedSignedAt: try existing.decode("signed_at", as: Double.self)) {
      let old = try StoredPayloads.shared.payload(existing)
      try db.query(
        "UPDATE app_store_transactions SET signed_at = ?, payload = ?, jws = ? WHERE app_id = ? AND transaction_id = ?",
        [.real(signedAt), Self.json(payload), .text(stored.jws), .integer(appId), .text(payload.transactionId)])
      let stored = PurchaseAttribution(
        placementId: try existing.decode("attr_placement"), audienceId: try existing.decode("attr_audience"),
        variationId: try existing.decode("attr_variation"), profileId: try existing.decode("attr_profile"))
      try Self.rollTransaction(db, appId: appId, old: old, new: payload, stored)
      events += TransactionEvents.resigned(old: old, new: payload, credit: stored)
    }
    if try existing.decode("variation_id", as: String?.self) == nil, let variation = stored.variationId {
      // The SDK names the variation; a notification that came first could not.
      try db.query(
        "UPDATE app_store_transactions SET variation_id = ? WHERE app_id = ? AND transaction_id = ?",
        [.text(variation), .integer(appId), .text(payload.transactionId)])
    }
    return events
  }

  /// The profile a transaction is credited to (`PurchaseOwnership.purchaser`), from what is stored.
  private static func purchaser(
    _ db: any SQLConnection, appId: Int64, _ payload: TransactionPayload, claimant: String?
  ) throws -> String? {
    if let claimant { return claimant }
    return PurchaseOwnership.purchaser(
      claimant: nil, owners: try owners(db, appId: appId, original: payload.originalTransactionId),
      tokenProfile: try existingProfile(db, appId: appId, payload.appAccountToken))
  }

  /// The profile an appAccountToken names, when it exists.
  private static func existingProfile(_ db: any SQLConnection, appId: Int64, _ token: String?) throws -> String? {
    guard let token = token?.lowercased(), try profile(db, appId: appId, id: token) != nil else { return nil }
    return token
  }

  private static func owners(_ db: any SQLConnection, appId: Int64, original: String) throws -> [String] {
    try db.query(
      "SELECT profile_id FROM app_store_owners WHERE app_id = ? AND original_transaction_id = ? ORDER BY profile_id",
      [.integer(appId), .text(original)]
    ).map { try $0.decode("profile_id") }
  }

  private static func link(_ db: any SQLConnection, appId: Int64, original: String, profileId: String, at: Date)
    throws
  {
    try db.query(
      """
      INSERT INTO app_store_owners (app_id, original_transaction_id, profile_id, linked_at) VALUES (?, ?, ?, ?)
      ON CONFLICT DO NOTHING
      """, [.integer(appId), .text(original), .text(profileId), .real(at.timeIntervalSince1970)])
  }

  static func json<T: Encodable>(_ value: T) -> SQLValue {
    .text(String(decoding: WireCoding.encode(value), as: UTF8.self))
  }
}
