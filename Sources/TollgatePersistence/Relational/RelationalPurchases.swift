import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The purchase rows of one app inside one SQL transaction: reads and writes, no decisions.
final class RelationalPurchases<Store: RelationalStore>: PurchaseUnitOfWork {
  private let db: any SQLConnection
  private let appId: Int64
  private let store: Store
  /// Profiles saved, announced after the commit.
  private(set) var saved: [String] = []
  /// Rollup rows the unit's subscriptions and cohorts change, written once before the commit
  /// (a unit recording many customers bumps a shared day's row once, not once per customer).
  let pending = PendingRollups()
  /// Profiles known to exist (`profileExists`).
  private var existing: Set<String> = []
  /// Each subscription's owners as read or written in the unit (`owners(of:)`): a batch of one
  /// customer's renewals, or a page of an imported history, asks once per subscription.
  private var owners: [String: [String]] = [:]
  /// Each subscription's earliest stored transaction as read or written in the unit (nil: none
  /// stored), for `subscriptionCredit`: its renewals in one batch ask once.
  private var firstTransactions: [String: FirstTransaction?] = [:]
  /// Profiles locked and read ahead by `readingAhead(histories:)`, each answered once.
  private var lockedAhead: [String: ProfileRecord?] = [:]
  /// Purchase histories read ahead by `readingAhead(histories:)`, each answered once.
  private var historiesAhead: [String: PurchaseHistory] = [:]
  /// Subscription period ends noted in the unit, written once each before the commit.
  private var subscriptionEnds: [String: (environment: String, end: Date)] = [:]
  /// Transactions `prefetch` found not stored: their inserts wait in `unwritten`.
  private var absent: Set<String> = []
  /// Inserts of transactions known to be new, written many to a statement before anything
  /// reads the transactions again (`writeInserts`): on PostgreSQL a batch's inserts one by one
  /// were a round trip each.
  private var unwritten: [[SQLValue]] = []
  /// Owner links of subscriptions whose owners are known in the unit, written with them.
  private var unwrittenLinks: [[SQLValue]] = []

  init(_ db: any SQLConnection, appId: Int64, store: Store) {
    self.db = db
    self.appId = appId
    self.store = store
  }

  func insert(_ notification: StoredNotification, at: Date) throws -> Bool {
    try db.query(
      """
      INSERT INTO app_store_notifications (app_id, notification_uuid, notification_type, subtype,
      original_transaction_id, signed_at, fact, payload, jws, received_at, origin)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
      """,
      [
        .integer(appId), .text(notification.uuid), .text(notification.fact.type),
        notification.fact.subtype.map(SQLValue.text) ?? .null,
        notification.fact.originalTransactionId.map(SQLValue.text) ?? .null,
        .real(Double(notification.fact.signedDate) / 1000), Store.json(notification.fact),
        .text(String(decoding: notification.payload, as: UTF8.self)), .text(notification.jws),
        .real(at.timeIntervalSince1970), .text(notification.origin),
      ])
    return db.changes == 1
  }

  func owners(of original: String) throws -> [String] {
    if let known = owners[original] { return known }
    try writeInserts()
    let read: [String] = try db.query(
      "SELECT profile_id FROM app_store_owners WHERE app_id = ? AND original_transaction_id = ? ORDER BY profile_id",
      [.integer(appId), .text(original)]
    ).map { try $0.decode("profile_id") }
    owners[original] = read
    return read
  }

  func profileExists(_ id: String) throws -> Bool {
    // Asked for every transaction that names an appAccountToken; a profile once there stays
    // (profiles are never deleted), so a batch of one customer's renewals asks once.
    if existing.contains(id) { return true }
    let exists = try !db.query(
      "SELECT 1 AS found FROM profiles WHERE app_id = ? AND id = ?", [.integer(appId), .text(id)]
    )
    .isEmpty
    if exists { existing.insert(id) }
    return exists
  }

  func prefetch(_ transactions: [TransactionPayload], profiles: [String]) throws {
    try writeInserts()
    let originals = Array(Set(transactions.map(\.originalTransactionId))).sorted()
    // Every stored transaction of the subscriptions read below: the batch's others are new.
    var readOriginals: Set<String> = []
    var stored: Set<String> = []
    let tokens = Array(Set(transactions.compactMap { $0.appAccountToken?.lowercased() })).sorted()
    for chunk in Self.chunks(originals.filter { owners[$0] == nil }) {
      for original in chunk { owners[original] = [] }
      for row in try db.lookup(
        "SELECT original_transaction_id, profile_id FROM app_store_owners WHERE app_id = ? "
          + "AND original_transaction_id IN (\(StatementRanges.placeholders(chunk.count)))",
        [.integer(appId)] + chunk.map(SQLValue.text))
      {
        owners[try row.decode("original_transaction_id"), default: []].append(try row.decode("profile_id"))
      }
      for original in chunk { owners[original]?.sort() }
    }
    for chunk in Self.chunks(originals.filter { firstTransactions[$0] == nil }) {
      readOriginals.formUnion(chunk)
      var first: [String: FirstTransaction] = [:]
      for row in try db.lookup(
        """
        SELECT original_transaction_id, transaction_id, signed_at, attr_placement, attr_audience, attr_variation,
        attr_profile FROM app_store_transactions WHERE app_id = ?
        AND original_transaction_id IN (\(StatementRanges.placeholders(chunk.count)))
        """, [.integer(appId)] + chunk.map(SQLValue.text))
      {
        let read = FirstTransaction(
          transactionId: try row.decode("transaction_id"), signedAt: try row.decode("signed_at"),
          credit: try Self.credit(row))
        let original: String = try row.decode("original_transaction_id")
        if first[original].map({ read.precedes($0) }) ?? true { first[original] = read }
        stored.insert(read.transactionId)
      }
      for original in chunk { firstTransactions[original] = .some(first[original]) }
    }
    for transaction in transactions
    where readOriginals.contains(transaction.originalTransactionId) && !stored.contains(transaction.transactionId) {
      absent.insert(transaction.transactionId)
    }
    for chunk in Self.chunks(tokens.filter { !existing.contains($0) }) {
      for row in try db.lookup(
        "SELECT id FROM profiles WHERE app_id = ? AND id IN (\(StatementRanges.placeholders(chunk.count)))",
        [.integer(appId)] + chunk.map(SQLValue.text))
      {
        existing.insert(try row.decode("id"))
      }
    }
    // The Apple Ads installs of the profiles the transactions will be credited to.
    let buyers = Set(profiles).union(tokens.filter { existing.contains($0) }).sorted()
    for chunk in Self.chunks(buyers.filter { pending.appleAdsProfiles[$0] == nil }) {
      for profile in chunk { pending.appleAdsProfiles[profile] = .some(nil) }
      for row in try db.lookup(
        "SELECT profile_id, day, campaign_id, ad_group_id, keyword_id, purchaser FROM stats_aa_profiles "
          + "WHERE app_id = ? AND profile_id IN (\(StatementRanges.placeholders(chunk.count)))",
        [.integer(appId)] + chunk.map(SQLValue.text))
      {
        pending.appleAdsProfiles[try row.decode("profile_id")] = .some(try Store.appleAdsProfile(row))
      }
    }
  }

  /// Writes the inserts `insert` and `link` kept, many to a statement. Each transaction was
  /// read ahead as not stored; one that another unit stored since (on PostgreSQL, committed
  /// between the read and now) was decided on as new, so the unit rolls back and runs again,
  /// reading it as stored (`StoreError.conflict`). A link another unit made meanwhile is the
  /// same row either way.
  func writeInserts() throws {
    if !unwritten.isEmpty {
      let rows = unwritten
      unwritten = []
      guard try insertTransactions(rows) == rows.count else {
        throw StoreError.conflict("a transaction read ahead as new was stored by another writer meanwhile")
      }
    }
    if !unwrittenLinks.isEmpty {
      let links = unwrittenLinks
      unwrittenLinks = []
      try insertLinks(links)
    }
  }

  /// Inserts transactions (`BulkRows.transactionColumns`), leaving any already stored as they
  /// are; how many were new.
  private func insertTransactions(_ rows: [[SQLValue]]) throws -> Int {
    try Store.insertRows(
      db, table: "app_store_transactions", columns: BulkRows.transactionColumns, rows,
      suffix: "ON CONFLICT DO NOTHING RETURNING transaction_id"
    ).count
  }

  /// Inserts owner links (`BulkRows.ownerColumns`), leaving any already there as they are.
  private func insertLinks(_ rows: [[SQLValue]]) throws {
    try Store.insertRows(
      db, table: "app_store_owners", columns: BulkRows.ownerColumns, rows, suffix: "ON CONFLICT DO NOTHING")
  }

  /// Keys split for `IN` lists of up to 512.
  private static func chunks(_ keys: [String]) -> [ArraySlice<String>] {
    StatementRanges.split(keys.count, limit: 512).map { keys[$0] }
  }

  func subscriptionCredit(of original: String, excluding transactionId: String) throws -> PurchaseAttribution? {
    if let known = firstTransactions[original], known?.transactionId != transactionId { return known?.credit }
    try writeInserts()
    // The first two: the earliest is remembered, and the second answers when the first is
    // the transaction asking (recorded again).
    let firstTwo = try db.lookup(
      """
      SELECT transaction_id, signed_at, attr_placement, attr_audience, attr_variation, attr_profile
      FROM app_store_transactions WHERE app_id = ? AND original_transaction_id = ?
      ORDER BY signed_at, transaction_id LIMIT 2
      """, [.integer(appId), .text(original)]
    ).map { row in
      FirstTransaction(
        transactionId: try row.decode("transaction_id"), signedAt: try row.decode("signed_at"),
        credit: try Self.credit(row))
    }
    firstTransactions[original] = .some(firstTwo.first)
    return firstTwo.first { $0.transactionId != transactionId }?.credit
  }

  func lastShown(to profileId: String, from: Date, through: Date) throws -> PurchaseAttribution? {
    try db.lookup(
      """
      SELECT placement_id, audience_id, variation_id FROM events
      WHERE app_id = ? AND profile_id = ? AND received_at <= ? AND received_at >= ?
      ORDER BY received_at DESC, seq DESC LIMIT 1
      """,
      [.integer(appId), .text(profileId), .real(through.timeIntervalSince1970), .real(from.timeIntervalSince1970)]
    ).first.map { row in
      PurchaseAttribution(
        placementId: try row.decode("placement_id"), audienceId: try row.decode("audience_id"),
        variationId: try row.decode("variation_id"))
    }
  }

  func insert(_ transaction: StoredTransaction, credit: PurchaseAttribution, at: Date) throws -> Bool {
    let payload = transaction.payload
    let row: [SQLValue] = [
      .integer(appId), .text(payload.transactionId), .text(payload.originalTransactionId), .text(payload.productId),
      payload.appAccountToken.map { SQLValue.text($0.lowercased()) } ?? .null,
      .real(Double(payload.signedDate) / 1000), transaction.variationId.map(SQLValue.text) ?? .null,
      StoredPayloads.shared.stored(payload), .text(transaction.jws), .real(at.timeIntervalSince1970),
      .text(credit.placementId), .text(credit.audienceId), .text(credit.variationId),
      credit.profileId.map(SQLValue.text) ?? .null,
    ]
    let original = payload.originalTransactionId
    let inserted: Bool
    if absent.remove(payload.transactionId) != nil {
      unwritten.append(row)
      inserted = true
    } else {
      // Insert first: of two instances storing the same transaction at once, one inserts and
      // the other (after waiting for it) finds it stored.
      try writeInserts()
      inserted = try insertTransactions([row]) == 1
    }
    guard inserted else {
      // Stored by another unit of work, which may have linked owners or stored the first
      // transaction since they were read (ahead): read them again when next asked.
      owners[original] = nil
      firstTransactions[original] = nil
      return false
    }
    if let known = firstTransactions[original] {
      let inserted = FirstTransaction(
        transactionId: payload.transactionId, signedAt: Double(payload.signedDate) / 1000, credit: credit)
      if known.map({ inserted.precedes($0) }) ?? true { firstTransactions[original] = .some(inserted) }
    }
    return true
  }

  func storedTransaction(_ transactionId: String) throws -> StoredTransactionRow? {
    try writeInserts()
    return try db.query(
      "SELECT payload, signed_at, attr_placement, attr_audience, attr_variation, attr_profile, variation_id "
        + "FROM app_store_transactions WHERE app_id = ? AND transaction_id = ?\(store.dialect.lockRow)",
      [.integer(appId), .text(transactionId)]
    ).first.map { row in
      StoredTransactionRow(
        payload: try StoredPayloads.shared.payload(row), signedAt: try row.decode("signed_at"),
        credit: try Self.credit(row), variationId: try row.decode("variation_id"))
    }
  }

  func replace(_ transaction: StoredTransaction) throws {
    try writeInserts()
    let payload = transaction.payload
    // A new signing date may reorder the subscription's transactions.
    firstTransactions[payload.originalTransactionId] = nil
    try db.query(
      "UPDATE app_store_transactions SET signed_at = ?, payload = ?, jws = ? WHERE app_id = ? AND transaction_id = ?",
      [
        .real(Double(payload.signedDate) / 1000), StoredPayloads.shared.stored(payload), .text(transaction.jws),
        .integer(appId),
        .text(payload.transactionId),
      ])
  }

  func name(variation: String, of transactionId: String) throws {
    try writeInserts()
    try db.query(
      "UPDATE app_store_transactions SET variation_id = ? WHERE app_id = ? AND transaction_id = ?",
      [.text(variation), .integer(appId), .text(transactionId)])
  }

  func rollTransaction(old: TransactionPayload?, new: TransactionPayload, credit: PurchaseAttribution) throws {
    try Store.rollTransaction(db, appId: appId, old: old, new: new, credit, pending: pending)
  }

  func rollSubscriptions(_ originals: [String]) throws {
    try writeInserts()
    // Everything the recomputation reads, read first: the trial and series rows written below
    // are not among it, and the cohorts read none of them.
    try pending.reads.prefetch(db, appId: appId, RollupQuery.perSubscription, keys: originals)
    defer { pending.reads.forget() }
    let profiles = try Store.creditedProfiles(db, appId: appId, originals: originals, pending: pending)
    try pending.reads.prefetch(db, appId: appId, RollupQuery.perProfile, keys: profiles)
    // Each subscription and profile is recomputed once here, and nothing here reads the
    // contributions it writes: they go many to a statement when the batch is done.
    pending.contributions = [:]
    defer { pending.contributions = nil }
    for original in originals {
      try Store.rollTrial(db, appId: appId, original: original, pending: pending)
      try Store.rollSubscription(db, appId: appId, original: original, pending: pending)
    }
    for profile in profiles { try Store.rollCohort(db, appId: appId, profile: profile, pending: pending) }
    try Store.writeContributions(pending, db)
  }

  func noteSubscriptionEnd(_ original: String, environment: String, periodEnd: Date) throws {
    // Kept until the unit ends, then written once per subscription (`writeSubscriptionEnds`):
    // a batch of renewals notes one subscription many times, and each statement is a round
    // trip to PostgreSQL. The first environment noted is the one an insert would keep.
    if let noted = subscriptionEnds[original] {
      subscriptionEnds[original] = (noted.environment, max(noted.end, periodEnd))
    } else {
      subscriptionEnds[original] = (environment, periodEnd)
    }
  }

  /// Writes the subscription ends noted in the unit, in key order (the order every writer
  /// locks them in), keeping the latest end stored or noted.
  func writeSubscriptionEnds() throws {
    try Store.insertRows(
      db, table: "app_store_subscription_ends", columns: "app_id, original_transaction_id, environment, period_end",
      subscriptionEnds.sorted { $0.key < $1.key }.map { original, noted in
        [.integer(appId), .text(original), .text(noted.environment), .real(noted.end.timeIntervalSince1970)]
      },
      suffix: """
        ON CONFLICT (app_id, original_transaction_id) DO UPDATE SET
        period_end = CASE WHEN excluded.period_end > app_store_subscription_ends.period_end
          THEN excluded.period_end ELSE app_store_subscription_ends.period_end END
        """)
    subscriptionEnds = [:]
  }

  func unownedSubscriptions(token: String) throws -> [String] {
    try writeInserts()
    // Each subscription once, in order: sorted here, since asking SQLite for DISTINCT … ORDER BY
    // made it walk the index by original transaction (every transaction of the app) instead.
    let originals = try db.lookup(Store.unownedSubscriptionsByToken, [.integer(appId), .text(token.lowercased())])
      .map { try $0.decode("original_transaction_id", as: String.self) }
    return Set(originals).sorted()
  }

  func unlink(_ original: String, from profileId: String) throws {
    try writeInserts()
    try db.query(
      "DELETE FROM app_store_owners WHERE app_id = ? AND original_transaction_id = ? AND profile_id = ?",
      [.integer(appId), .text(original), .text(profileId)])
    owners[original]?.removeAll { $0 == profileId }
  }

  func link(_ original: String, to profileId: String, at: Date) throws {
    let row: [SQLValue] = [.integer(appId), .text(original), .text(profileId), .real(at.timeIntervalSince1970)]
    if var known = owners[original] {
      // Known owners: the link waits for the unit's next read of owners (or its end).
      guard !known.contains(profileId) else { return }
      known.append(profileId)
      owners[original] = known.sorted()
      unwrittenLinks.append(row)
      return
    }
    try insertLinks([row])
  }

  func readingAhead<T>(histories profileIds: [String], _ body: () throws -> T) throws -> T {
    try writeInserts()
    defer {
      lockedAhead = [:]
      historiesAhead = [:]
    }
    for chunk in Self.chunks(Array(Set(profileIds)).sorted()) {
      let keys = [SQLValue.integer(appId)] + chunk.map(SQLValue.text)
      for id in chunk { lockedAhead[id] = .some(nil) }
      // In id order, the order every unit of work locks profiles in.
      for row in try db.lookup(
        "SELECT \(SQLColumns.profile) FROM profiles WHERE app_id = ? "
          + "AND id IN (\(StatementRanges.placeholders(chunk.count))) ORDER BY id\(store.dialect.lockRow)", keys)
      {
        let profile = try Store.decodeProfile(row)
        lockedAhead[profile.id] = .some(profile)
      }
      historiesAhead.merge(try histories(of: chunk, keys)) { _, read in read }
    }
    return try body()
  }

  /// The purchase histories of up to 512 profiles (`keys`: the app, then their ids).
  private func histories(of profiles: ArraySlice<String>, _ keys: [SQLValue]) throws -> [String: PurchaseHistory] {
    var histories = Dictionary(
      profiles.map { ($0, PurchaseHistory(transactions: [], notifications: [], grants: [])) },
      uniquingKeysWith: { first, _ in first })
    var owners: [String: [String]] = [:]
    for row in try db.lookup(Store.ownedSubscriptions(profiles.count), keys) {
      owners[try row.decode("original_transaction_id"), default: []].append(try row.decode("profile_id"))
    }
    let decoder = WireCoding.decoder
    for originals in Self.chunks(owners.keys.sorted()) {
      let byOriginal = [SQLValue.integer(appId)] + originals.map(SQLValue.text)
      for row in try db.lookup(Store.subscriptionsTransactions(originals.count), byOriginal) {
        let payload = try StoredPayloads.shared.payload(row)
        for owner in owners[try row.decode("original_transaction_id")] ?? [] {
          histories[owner]?.transactions.append(payload)
        }
      }
      for row in try db.lookup(Store.subscriptionsNotifications(originals.count), byOriginal) {
        let fact = try decoder.decode(NotificationFact.self, from: try row.decode("fact"))
        for owner in owners[try row.decode("original_transaction_id")] ?? [] {
          histories[owner]?.notifications.append(fact)
        }
      }
    }
    for row in try db.lookup(
      "SELECT profile_id, \(Store.grantColumns) FROM access_grants WHERE app_id = ? "
        + "AND profile_id IN (\(StatementRanges.placeholders(profiles.count))) ORDER BY profile_id, id", keys)
    {
      histories[try row.decode("profile_id")]?.grants.append(try Store.grant(row))
    }
    return histories
  }

  func lockedProfile(_ id: String) throws -> ProfileRecord? {
    if let known = lockedAhead.removeValue(forKey: id) { return known }
    return try Store.profile(db, appId: appId, id: id, lock: store.dialect.lockRow)
  }

  func profile(_ id: String) throws -> ProfileRecord? {
    try Store.profile(db, appId: appId, id: id)
  }

  func history(of profileId: String) throws -> PurchaseHistory {
    if let known = historiesAhead.removeValue(forKey: profileId) { return known }
    try writeInserts()
    let key: [SQLValue] = [.integer(appId), .integer(appId), .text(profileId)]
    let transactions = try db.lookup(
      """
      SELECT payload FROM app_store_transactions WHERE app_id = ? AND original_transaction_id IN
      (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?)
      """, key
    ).map { try StoredPayloads.shared.payload($0) }
    let decoder = WireCoding.decoder
    let notifications = try db.lookup(
      """
      SELECT fact FROM app_store_notifications WHERE app_id = ? AND original_transaction_id IN
      (SELECT original_transaction_id FROM app_store_owners WHERE app_id = ? AND profile_id = ?)
      """, key
    ).map { try decoder.decode(NotificationFact.self, from: try $0.decode("fact")) }
    let grants = try db.query(
      "SELECT \(Store.grantColumns) FROM access_grants WHERE app_id = ? AND profile_id = ? ORDER BY id",
      [.integer(appId), .text(profileId)]
    ).map(Store.grant)
    return PurchaseHistory(transactions: transactions, notifications: notifications, grants: grants)
  }

  func save(_ profile: ProfileRecord) throws {
    try store.save(db, appId: appId, profile)
    if !saved.contains(profile.id) { saved.append(profile.id) }
  }

  func enqueue(_ events: [PendingWebhookEvent], to webhooks: [WebhookConfig], at: Date) throws {
    try Store.enqueueWebhookEvents(db, appId: appId, events, to: webhooks, at: at)
  }

  func insertGrant(
    profileId: String, accessLevel: String, expiresAt: Date?, reason: String, by actor: String, at: Date
  ) throws -> AccessGrant {
    let rows = try db.query(
      """
      INSERT INTO access_grants (app_id, profile_id, access_level, granted_at, expires_at, reason, granted_by)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING \(Store.grantColumns)
      """,
      [
        .integer(appId), .text(profileId), .text(accessLevel), .real(at.timeIntervalSince1970),
        expiresAt.map { .real($0.timeIntervalSince1970) } ?? .null, .text(reason), .text(actor),
      ])
    guard let row = rows.first else { throw StoreError.database("INSERT … RETURNING answered no row") }
    return try Store.grant(row)
  }

  func revokeGrants(profileId: String, accessLevel: String, by actor: String, at: Date) throws -> [AccessGrant] {
    try db.query(
      """
      UPDATE access_grants SET revoked_at = ?, revoked_by = ?
      WHERE app_id = ? AND profile_id = ? AND access_level = ? AND revoked_at IS NULL
      AND (expires_at IS NULL OR expires_at > ?) RETURNING \(Store.grantColumns)
      """,
      [
        .real(at.timeIntervalSince1970), .text(actor), .integer(appId), .text(profileId), .text(accessLevel),
        .real(at.timeIntervalSince1970),
      ]
    ).map(Store.grant)
  }

  func insert(_ request: StoredRefundRequest) throws -> Bool {
    try db.query(
      """
      INSERT INTO app_store_refund_requests (app_id, notification_uuid, transaction_id, original_transaction_id,
      product_id, product_type, environment, reason, requested_at, received_at, status, next_try_at, last_error)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
      """,
      [
        .integer(appId), .text(request.notificationUUID), .text(request.transactionId),
        .text(request.originalTransactionId), .text(request.productId), .text(request.productType),
        .text(request.environment), request.reason.map(SQLValue.text) ?? .null, .real(request.requestedAt),
        .real(request.receivedAt), .text(request.status), .real(request.nextTryAt),
        request.lastError.map(SQLValue.text) ?? .null,
      ])
    return db.changes == 1
  }

  func closeRefundRequests(transactionId: String, outcome: String, at: Date) throws {
    try db.query(
      """
      UPDATE app_store_refund_requests SET outcome = ?, closed_at = ?
      WHERE app_id = ? AND transaction_id = ? AND outcome IS NULL
      """, [.text(outcome), .real(at.timeIntervalSince1970), .integer(appId), .text(transactionId)])
  }

  /// A subscription's earliest stored transaction and the credit it was stored with.
  private struct FirstTransaction {
    var transactionId: String
    var signedAt: Double
    var credit: PurchaseAttribution

    /// Whether this one comes first in `subscriptionCredit`'s order (signing date, then id).
    func precedes(_ other: FirstTransaction) -> Bool {
      (signedAt, transactionId) < (other.signedAt, other.transactionId)
    }
  }

  private static func credit(_ row: SQLRow) throws -> PurchaseAttribution {
    PurchaseAttribution(
      placementId: try row.decode("attr_placement"), audienceId: try row.decode("attr_audience"),
      variationId: try row.decode("attr_variation"), profileId: try row.decode("attr_profile"))
  }
}

extension RelationalStore {
  /// The subscriptions `count` profiles own (the app, then the profiles' ids). The histories
  /// read by them first, then by subscription: joined in one statement, SQLite walked every
  /// transaction of the app.
  static func ownedSubscriptions(_ count: Int) -> String {
    "SELECT profile_id, original_transaction_id FROM app_store_owners WHERE app_id = ? "
      + "AND profile_id IN (\(StatementRanges.placeholders(count)))"
  }

  /// The transactions of `count` subscriptions.
  static func subscriptionsTransactions(_ count: Int) -> String {
    "SELECT original_transaction_id, payload FROM app_store_transactions WHERE app_id = ? "
      + "AND original_transaction_id IN (\(StatementRanges.placeholders(count)))"
  }

  /// The notifications of `count` subscriptions.
  static func subscriptionsNotifications(_ count: Int) -> String {
    "SELECT original_transaction_id, fact FROM app_store_notifications WHERE app_id = ? "
      + "AND original_transaction_id IN (\(StatementRanges.placeholders(count)))"
  }

  /// The subscriptions no profile owns yet bought under an appAccountToken, a row a transaction
  /// (read through `app_store_transactions_by_token`).
  static var unownedSubscriptionsByToken: String {
    """
    SELECT t.original_transaction_id FROM app_store_transactions t
    WHERE t.app_id = ? AND t.app_account_token = ? AND NOT EXISTS (SELECT 1 FROM app_store_owners o
    WHERE o.app_id = t.app_id AND o.original_transaction_id = t.original_transaction_id)
    """
  }
}
