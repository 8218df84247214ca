import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Rollups, kept as facts arrive, in the same transaction as the facts. Each counter is a sum
/// of per-fact contributions, defined once in `PlacementProjection` and `AppleAdsProjection`;
/// where a contribution depends on other facts (a viewer's first day, a purchaser's first day,
/// a trial's conversion) it is recomputed and the difference applied, so the arrival order
/// never changes the figures. The rebuild sums the same projections over the raw facts; both
/// must agree exactly.
extension RelationalStore {
  /// A flow shown: an impression, and a viewer when it is the profile's first view of the
  /// variation (or earlier than the one known). The day's counters go to `pending`.
  static func rollImpression(_ db: any SQLConnection, appId: Int64, _ event: EventRecord, pending: PendingRollups)
    throws
  {
    let day = StatsDay.of(event.receivedAt)
    let key = VariationKey(placement: event.placementId, audience: event.audienceId, variation: event.variationId)
    var changes = PlacementProjection.Changes()
    PlacementProjection.impression(key, day: day, into: &changes)
    try apply(changes, db, appId: appId, pending: pending)
    try rollFirstDay(
      db, table: "stats_viewers", appId: appId, key, profileId: event.profileId, day: day, counter: "viewers",
      pending: pending)
  }

  /// A transaction stored for the first time (`old` nil) or replaced by a newer signed version.
  static func rollTransaction(
    _ db: any SQLConnection, appId: Int64, old: TransactionPayload?, new: TransactionPayload,
    _ credit: PurchaseAttribution, pending: PendingRollups? = nil
  ) throws {
    let key = VariationKey(placement: credit.placementId, audience: credit.audienceId, variation: credit.variationId)
    // The transaction's rows as it is now, less its rows as it was (a refund made or taken back).
    var changes = PlacementProjection.Changes()
    PlacementProjection.transaction(new, key, into: &changes)
    if let old { PlacementProjection.transaction(old, key, into: &changes, sign: -1) }
    try apply(changes, db, appId: appId, pending: pending)
    if new.isPaid, credit.isAttributed, let profileId = credit.profileId {
      try rollPayer(db, appId: appId, key, profileId: profileId, old: old, new: new, pending: pending)
    }
    guard old == nil else { return }
    if new.isPurchase, credit.isAttributed, let profileId = credit.profileId {
      try rollFirstDay(
        db, table: "stats_purchasers", appId: appId, key, profileId: profileId, day: new.purchaseDay,
        counter: "purchasers", pending: pending)
    }
    if let profileId = credit.profileId {
      try rollAppleAdsPurchase(db, appId: appId, profileId: profileId, new, pending: pending)
    }
  }

  /// Moves a profile's first day for a variation to the earliest seen, as
  /// `PlacementProjection.first` decides from the stored row.
  private static func rollFirstDay(
    _ db: any SQLConnection, table: String, appId: Int64, _ key: VariationKey, profileId: String, day: Int64,
    counter: String, pending: PendingRollups?
  ) throws {
    let who: [SQLValue] = [.integer(appId), .text(key.variation), .text(profileId)]
    let known = try db.query(
      "SELECT first_day, placement_id, audience_id FROM \(table) WHERE app_id = ? AND variation_id = ? AND profile_id = ?",
      who
    ).first.map(firstDay(key.variation))
    var changes = PlacementProjection.Changes()
    guard
      let first = PlacementProjection.first(
        counter, PlacementProjection.First(variation: key, day: day), known: known, into: &changes)
    else { return }
    let row: [SQLValue] = [.text(first.variation.placement), .text(first.variation.audience), .integer(first.day)]
    if known == nil {
      try db.query(
        """
        INSERT INTO \(table) (app_id, variation_id, profile_id, placement_id, audience_id, first_day)
        VALUES (?, ?, ?, ?, ?, ?)
        """, who + row)
    } else {
      try db.query(
        """
        UPDATE \(table) SET placement_id = ?, audience_id = ?, first_day = ?
        WHERE app_id = ? AND variation_id = ? AND profile_id = ?
        """, row + who)
    }
    try apply(changes, db, appId: appId, pending: pending)
  }

  /// A stored first day of `variation` (`stats_viewers`, `stats_purchasers`, `stats_payers`).
  private static func firstDay(_ variation: String) -> (SQLRow) throws -> PlacementProjection.First {
    { row in
      PlacementProjection.First(
        variation: VariationKey(
          placement: try row.decode("placement_id"), audience: try row.decode("audience_id"), variation: variation),
        day: try row.decode("first_day"))
    }
  }

  /// A paid transaction for a paying viewer of a variation (`old`: the version it replaces):
  /// their stored first paid day and net, moved as `PlacementProjection.payer` decides.
  private static func rollPayer(
    _ db: any SQLConnection, appId: Int64, _ key: VariationKey, profileId: String, old: TransactionPayload?,
    new: TransactionPayload, pending: PendingRollups?
  ) throws {
    let who: [SQLValue] = [.integer(appId), .text(key.variation), .text(profileId), .text(new.currencyCode)]
    let known = try db.query(
      """
      SELECT first_day, placement_id, audience_id, net FROM stats_payers
      WHERE app_id = ? AND variation_id = ? AND profile_id = ? AND currency = ?
      """, who
    ).first.map { row in
      PlacementProjection.Payer(first: try firstDay(key.variation)(row), net: try row.decode("net"))
    }
    var changes = PlacementProjection.Changes()
    guard let after = PlacementProjection.payer(known, old: old, new: new, key, into: &changes) else { return }
    if known == nil {
      try db.query(
        """
        INSERT INTO stats_payers (app_id, variation_id, profile_id, currency, placement_id, audience_id, first_day, net)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """,
        who + [
          .text(after.first.variation.placement), .text(after.first.variation.audience), .integer(after.first.day),
          .integer(after.net),
        ])
    } else {
      try db.query(
        """
        UPDATE stats_payers SET first_day = ?, net = ?
        WHERE app_id = ? AND variation_id = ? AND profile_id = ? AND currency = ?
        """, [.integer(after.first.day), .integer(after.net)] + who)
    }
    try apply(changes, db, appId: appId, pending: pending)
  }

  /// Recomputes a subscription's trial facts from all its transactions and applies the
  /// change, once per subscription a batch touched. The credit goes to the subscription's
  /// first transaction's paywall.
  static func rollTrial(_ db: any SQLConnection, appId: Int64, original: String, pending: PendingRollups? = nil)
    throws
  {
    let rows = try rollupRows(db, appId: appId, .subscriptionTransactions, original, pending: pending)
    let transactions = try rows.map {
      try StoredPayloads.shared.payload($0)
    }
    let facts = TrialFacts.of(transactions)
    let owner = trialOwner(
      zip(
        transactions,
        try rows.map {
          VariationKey(
            placement: try $0.decode("attr_placement"), audience: try $0.decode("attr_audience"),
            variation: try $0.decode("attr_variation"))
        }))
    let row = try rollupRows(db, appId: appId, .trial, original, pending: pending).first
    let before = TrialFacts(
      trialDay: try row?.decode("trial_day", as: Int64?.self),
      convertedDay: try row?.decode("converted_day", as: Int64?.self))
    let previous = try row.map {
      VariationKey(
        placement: try $0.decode("placement_id"), audience: try $0.decode("audience_id"),
        variation: try $0.decode("variation_id"))
    }
    guard facts != before || (previous != nil && previous != owner) else { return }
    var changes = PlacementProjection.Changes()
    if let previous { PlacementProjection.trial(before, previous, into: &changes, sign: -1) }
    PlacementProjection.trial(facts, owner, into: &changes)
    try apply(changes, db, appId: appId, pending: pending)
    guard facts.trialDay != nil || row != nil else { return }
    try db.query(
      """
      INSERT INTO stats_trials (app_id, original_transaction_id, placement_id, audience_id, variation_id, trial_day,
      converted_day) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (app_id, original_transaction_id) DO UPDATE SET placement_id = excluded.placement_id,
      audience_id = excluded.audience_id, variation_id = excluded.variation_id, trial_day = excluded.trial_day,
      converted_day = excluded.converted_day
      """,
      [
        .integer(appId), .text(original), .text(owner.placement), .text(owner.audience), .text(owner.variation),
        facts.trialDay.map(SQLValue.integer) ?? .null, facts.convertedDay.map(SQLValue.integer) ?? .null,
      ])
  }

  /// The paywall a subscription's trial is credited to: its earliest transaction's.
  static func trialOwner<S: Sequence>(_ transactions: S) -> VariationKey
  where S.Element == (TransactionPayload, VariationKey) {
    transactions.min { ($0.0.purchaseDate, $0.0.transactionId) < ($1.0.purchaseDate, $1.0.transactionId) }?.1
      ?? VariationKey(placement: "", audience: "", variation: "")
  }

  /// A purchase by a profile that came from Apple Ads: its campaign's revenue and purchasers.
  /// A profile's Apple Ads install from its `stats_aa_profiles` row.
  static func appleAdsProfile(_ row: SQLRow) throws -> PendingRollups.AppleAdsProfile {
    PendingRollups.AppleAdsProfile(
      group: try appleAdsKey(row), purchaser: try row.decode("purchaser", as: Int64.self) != 0)
  }

  private static func rollAppleAdsPurchase(
    _ db: any SQLConnection, appId: Int64, profileId: String, _ transaction: TransactionPayload,
    pending: PendingRollups?
  ) throws {
    let install: PendingRollups.AppleAdsProfile?
    if let known = pending?.appleAdsProfiles[profileId] {
      install = known
    } else {
      install = try db.query(
        "SELECT day, campaign_id, ad_group_id, keyword_id, purchaser FROM stats_aa_profiles WHERE app_id = ? AND profile_id = ?",
        [.integer(appId), .text(profileId)]
      ).first.map(appleAdsProfile)
      pending?.appleAdsProfiles[profileId] = .some(install)
    }
    guard let install else { return }
    var changes = AppleAdsProjection.Changes()
    AppleAdsProjection.sale(install.group, transaction, into: &changes)
    if transaction.isPurchase, !install.purchaser {
      try db.query(
        "UPDATE stats_aa_profiles SET purchaser = 1 WHERE app_id = ? AND profile_id = ?",
        [.integer(appId), .text(profileId)])
      pending?.appleAdsProfiles[profileId] = .some(
        PendingRollups.AppleAdsProfile(group: install.group, purchaser: true))
      AppleAdsProjection.firstPurchase(install.group, into: &changes)
    }
    try apply(changes, db, appId: appId, pending: pending)
  }

  /// Apple Ads attribution just applied to a profile: an install of its campaign, with what
  /// the profile did before it was known to come from Apple Ads.
  static func rollAppleAdsInstall(
    _ db: any SQLConnection, appId: Int64, _ profile: ProfileRecord, pending: PendingRollups? = nil
  ) throws {
    guard let payload = profile.attribution.appleAds?.payload, let campaign = payload.campaignId else { return }
    let group = AppleAdsKey(
      day: StatsDay.of(profile.createdAt), campaign: campaign, adGroup: payload.adGroupId ?? 0,
      keyword: payload.keywordId ?? 0)
    let key: [SQLValue] = [.integer(appId), .text(profile.id)]
    let inTime =
      try db.query(
        "SELECT 1 FROM first_launch_reports WHERE app_id = ? AND profile_id = ? AND aa_flow_in_time = 1", key
      ).isEmpty ? 0 : 1
    let transactions = try db.query(
      "SELECT payload FROM app_store_transactions WHERE app_id = ? AND attr_profile = ?", key
    ).map { try StoredPayloads.shared.payload($0) }
    let purchaser = transactions.contains { $0.isPurchase } ? 1 : 0
    try db.query(
      """
      INSERT INTO stats_aa_profiles (app_id, profile_id, day, campaign_id, ad_group_id, keyword_id, flow_in_time,
      purchaser) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
      """,
      key + [
        .integer(group.day), .integer(group.campaign), .integer(group.adGroup), .integer(group.keyword),
        .integer(Int64(inTime)), .integer(Int64(purchaser)),
      ])
    guard db.changes == 1 else { return }
    pending?.appleAdsProfiles[profile.id] = nil
    // Gathered and written once, in the order every writer of these rows keeps: into the
    // caller's `pending` when it gathers a batch's.
    let batch = pending ?? PendingRollups()
    var changes = AppleAdsProjection.Changes()
    AppleAdsProjection.install(group, flowInTime: inTime == 1, purchaser: purchaser == 1, into: &changes)
    for transaction in transactions { AppleAdsProjection.sale(group, transaction, into: &changes) }
    try apply(changes, db, appId: appId, pending: batch)
    // Its subscriptions are now reported under the campaign.
    let originals = try db.query(
      "SELECT DISTINCT original_transaction_id FROM app_store_transactions WHERE app_id = ? AND attr_profile = ?", key)
    for row in originals {
      try rollSubscription(db, appId: appId, original: try row.decode("original_transaction_id"), pending: batch)
    }
    try rollCohort(db, appId: appId, profile: profile.id, pending: batch)
    if pending == nil { try write(batch, db, appId: appId) }
  }

  /// Adds a projection's changes to `stats_apple_ads` and `stats_apple_ads_revenue`: into
  /// `pending` when a unit of work gathers them, else at once.
  static func apply(
    _ changes: AppleAdsProjection.Changes, _ db: any SQLConnection, appId: Int64, pending: PendingRollups? = nil
  ) throws {
    if let pending { return pending.appleAds.merge(changes) }
    func key(_ group: AppleAdsKey) -> [SQLValue] {
      [.integer(group.day), .integer(group.campaign), .integer(group.adGroup), .integer(group.keyword)]
    }
    func order(_ a: AppleAdsKey, _ b: AppleAdsKey) -> Bool {
      (a.day, a.campaign, a.adGroup, a.keyword) < (b.day, b.campaign, b.adGroup, b.keyword)
    }
    // Many rows a statement, in key order (writers lock rows in one order).
    try bumpCounters(
      db, table: "stats_apple_ads", appId: appId, keys: ["day", "campaign_id", "ad_group_id", "keyword_id"],
      counters: ["installs", "flow_in_time", "purchasers"],
      changes.counts.sorted { order($0.key, $1.key) }.map { group, counts in
        (key(group), [counts.installs, counts.flowInTime, counts.purchasers])
      })
    try bumpCounters(
      db, table: "stats_apple_ads_revenue", appId: appId,
      keys: ["day", "campaign_id", "ad_group_id", "keyword_id", "currency"], counters: ["gross"],
      changes.gross.sorted {
        order($0.key.group, $1.key.group) || ($0.key.group == $1.key.group && $0.key.currency < $1.key.currency)
      }.map { row, gross in (key(row.group) + [.text(row.currency)], [gross]) })
  }

  /// Adds a projection's changes to `stats_daily`, `stats_revenue` and `stats_payer_revenue`:
  /// into `pending` when a unit of work gathers them, else at once, many rows a statement in
  /// key order (writers lock rows in one order).
  static func apply(
    _ changes: PlacementProjection.Changes, _ db: any SQLConnection, appId: Int64, pending: PendingRollups? = nil
  ) throws {
    if let pending { return pending.placement.merge(changes) }
    func key(_ variation: VariationKey, _ day: Int64) -> [SQLValue] {
      [.text(variation.placement), .text(variation.audience), .text(variation.variation), .integer(day)]
    }
    func order(_ a: VariationKey, _ b: VariationKey) -> Bool {
      (a.placement, a.audience, a.variation) < (b.placement, b.audience, b.variation)
    }
    func before(_ a: PlacementProjection.MoneyDay, _ b: PlacementProjection.MoneyDay) -> Bool {
      if a.day != b.day { return a.day < b.day }
      if a.variation != b.variation { return order(a.variation, b.variation) }
      return a.currency < b.currency
    }
    let variationDay = ["placement_id", "audience_id", "variation_id", "day"]
    try bumpCounters(
      db, table: "stats_daily", appId: appId, keys: variationDay, counters: dailyCounters,
      changes.daily.sorted {
        $0.key.day != $1.key.day ? $0.key.day < $1.key.day : order($0.key.variation, $1.key.variation)
      }.map { row, counters in (key(row.variation, row.day), dailyCounters.map { counters[$0] ?? 0 }) })
    try bumpCounters(
      db, table: "stats_revenue", appId: appId, keys: variationDay + ["currency"],
      counters: ["gross", "refunded", "transactions"],
      changes.money.sorted { before($0.key, $1.key) }.map { row, figures in
        (key(row.variation, row.day) + [.text(row.currency)], [figures.gross, figures.refunded, figures.transactions])
      })
    try bumpCounters(
      db, table: "stats_payer_revenue", appId: appId, keys: variationDay + ["currency"],
      counters: ["payers", "net", "log_sum", "log_squares"],
      changes.payers.sorted { before($0.key, $1.key) }.map { row, moments in
        (
          key(row.variation, row.day) + [.text(row.currency)],
          [moments.payers, moments.net, moments.logSum, moments.logSquares]
        )
      })
  }

  /// The counters of `stats_daily`.
  static var dailyCounters: [String] {
    ["impressions", "viewers", "purchasers", "trials", "trial_conversions", "refunds"]
  }
}

/// A rollup row's variation.
typealias VariationKey = PlacementProjection.Variation

/// A rollup row's Apple Ads group (install day, campaign, ad group, keyword; 0 when absent).
typealias AppleAdsKey = AppleAdsProjection.Group
