import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The subscription rollup: per day, environment, product, currency and the subscription's
/// dimensions (storefront, Apple Ads campaign, ad group and keyword, credited paywall), the
/// changes `SubscriptionTimeline` derives. Each subscription's current contribution is kept
/// (`stats_subscriptions`), so when one of its transactions or notifications arrives — or its
/// profile's Apple Ads attribution — the old contribution is taken out and the new one put in:
/// arrival order never changes the figures, and a rebuild from raw rows must agree exactly.
extension RelationalStore {
  /// Recomputes one subscription's contribution and applies the difference.
  static func rollSubscription(
    _ db: any SQLConnection, appId: Int64, original: String, pending: PendingRollups? = nil
  ) throws {
    let (dimensions, changes) = try subscriptionFacts(db, appId: appId, original: original, pending: pending)
    let now = SubscriptionContribution(dimensions: dimensions, rows: changes)
    let before: SubscriptionContribution? = try storedContribution(
      db, .subscriptionContribution, appId: appId, id: original, pending: pending)
    guard before != now, before != nil || !changes.isEmpty else { return }
    if let pending {
      for (dimensions, where_, counters) in now.changes(from: before) {
        let row = SubscriptionRow(dimensions: dimensions, where_: where_)
        pending.subscriptionDays[row] = pending.subscriptionDays[row].map { $0 + counters } ?? counters
      }
    } else {
      try bumpSubscriptionDays(db, appId: appId, now.changes(from: before))
    }
    try saveContribution(
      db, table: "stats_subscriptions", idColumn: "original_transaction_id", appId: appId, id: original, now,
      pending: pending)
  }

  /// A subscription's dimensions and changes from its stored transactions and notifications.
  static func subscriptionFacts(
    _ db: any SQLConnection, appId: Int64, original: String, pending: PendingRollups? = nil
  ) throws -> (SubscriptionDimensions, [SubscriptionDay: SubscriptionCounters]) {
    let rows = try rollupRows(db, appId: appId, .subscriptionTransactions, original, pending: pending)
    var transactions: [(TransactionPayload, VariationKey, String?)] = []
    for row in rows {
      transactions.append(
        (
          try StoredPayloads.shared.payload(row),
          VariationKey(
            placement: try row.decode("attr_placement"), audience: try row.decode("attr_audience"),
            variation: try row.decode("attr_variation")), try row.decode("attr_profile")
        ))
    }
    let failures = try rollupRows(db, appId: appId, .renewalFailures, original, pending: pending).map { row in
      (
        day: StatsDay.of(Date(timeIntervalSince1970: try row.decode("signed_at"))),
        grace: try row.decode("subtype", as: String?.self) == "GRACE_PERIOD"
      )
    }
    return try subscriptionContribution(
      transactions, failures: failures,
      imported: { try !rollupRows(db, appId: appId, .imported, $0, pending: pending).isEmpty }
    ) { try rollupRows(db, appId: appId, .appleAdsInstall, $0, pending: pending).first.map(appleAdsKey) }
  }

  /// A subscription's dimensions — its first transaction's storefront and paywall, its profile's
  /// Apple Ads keyword (`ads`) — and its changes.
  static func subscriptionContribution(
    _ transactions: [(TransactionPayload, VariationKey, String?)], failures: [(day: Int64, grace: Bool)],
    imported: (String) throws -> Bool, ads: (String) throws -> AppleAdsKey?
  ) rethrows -> (SubscriptionDimensions, [SubscriptionDay: SubscriptionCounters]) {
    let first = transactions.min { ($0.0.purchaseDate, $0.0.transactionId) < ($1.0.purchaseDate, $1.0.transactionId) }
    var dimensions = SubscriptionDimensions(
      storefront: first?.0.storefront ?? "", placementId: first?.1.placement ?? "",
      audienceId: first?.1.audience ?? "", variationId: first?.1.variation ?? "")
    if let profile = first?.2, let group = try ads(profile) {
      dimensions.campaignId = group.campaign
      dimensions.adGroupId = group.adGroup
      dimensions.keywordId = group.keyword
    }
    if let profile = first?.2, try imported(profile) { dimensions.origin = "import" }
    return (dimensions, SubscriptionTimeline.changes(transactions.map(\.0), failures: failures))
  }

  /// Adds changes to `stats_subscription_days` and to the day's totals over every dimension
  /// (`stats_subscription_totals`, what an unfiltered report reads).
  static func bumpSubscriptionDays(
    _ db: any SQLConnection, appId: Int64, _ changes: [(SubscriptionDimensions, SubscriptionDay, SubscriptionCounters)]
  ) throws {
    // Summed first: one statement must not name a row twice.
    var rows: [SubscriptionRow: SubscriptionCounters] = [:]
    var totals: [SubscriptionTotalsRow: SubscriptionCounters] = [:]
    for (dimensions, where_, counters) in changes {
      let row = SubscriptionRow(dimensions: dimensions, where_: where_)
      rows[row] = rows[row].map { $0 + counters } ?? counters
      let total = SubscriptionTotalsRow(environment: where_.environment, day: where_.day, currency: where_.currency)
      totals[total] = totals[total].map { $0 + counters } ?? counters
    }
    try bumpCounters(
      db, table: "stats_subscription_days", appId: appId,
      keys: [
        "environment", "day", "product_id", "currency", "storefront", "campaign_id", "ad_group_id", "keyword_id",
        "placement_id", "audience_id", "variation_id", "origin",
      ], counters: SubscriptionCounters.columns,
      rows.sorted { Self.keyOrder($0.key, $1.key) }
        .map { row, counters in
          let (dimensions, where_) = (row.dimensions, row.where_)
          return
            (
              [
                .text(where_.environment), .integer(where_.day), .text(where_.product), .text(where_.currency),
                .text(dimensions.storefront), .integer(dimensions.campaignId), .integer(dimensions.adGroupId),
                .integer(dimensions.keywordId), .text(dimensions.placementId), .text(dimensions.audienceId),
                .text(dimensions.variationId), .text(dimensions.origin ?? "live"),
              ], counters.values
            )
        })
    try bumpCounters(
      db, table: "stats_subscription_totals", appId: appId, keys: ["environment", "day", "currency"],
      counters: SubscriptionCounters.columns,
      totals.sorted {
        ($0.key.environment, $0.key.day, $0.key.currency) < ($1.key.environment, $1.key.day, $1.key.currency)
      }
      .map { row, counters in ([.text(row.environment), .integer(row.day), .text(row.currency)], counters.values) })
  }

  /// The order `stats_subscription_days` rows are written in: their whole key, so two writers
  /// of the same rows lock them in the same order.
  static func keyOrder(_ a: SubscriptionRow, _ b: SubscriptionRow) -> Bool {
    if a.where_ != b.where_ { return a.where_ < b.where_ }
    let (x, y) = (a.dimensions, b.dimensions)
    if (x.storefront, x.campaignId, x.adGroupId, x.keywordId) != (y.storefront, y.campaignId, y.adGroupId, y.keywordId)
    {
      return (x.storefront, x.campaignId, x.adGroupId, x.keywordId) < (
        y.storefront, y.campaignId, y.adGroupId, y.keywordId
      )
    }
    return (x.placementId, x.audienceId, x.variationId, x.origin ?? "live")
      < (y.placementId, y.audienceId, y.variationId, y.origin ?? "live")
  }

  /// Every subscription's contribution, recomputed from the rebuild's reading of the raw rows:
  /// the app's transactions by subscription, its Apple Ads profiles, and (read here) the failed
  /// renewals Apple notified.
  static func rebuildSubscriptions(
    _ db: any SQLConnection, appId: Int64, _ byOriginal: [String: [(TransactionPayload, VariationKey, String?)]],
    ads: [String: AppleAdsKey]
  ) throws {
    let imported = Set(
      try db.query("SELECT profile_id FROM imported_profiles WHERE app_id = ?", [.integer(appId)]).map {
        try $0.decode("profile_id", as: String.self)
      })
    var failures: [String: [(day: Int64, grace: Bool)]] = [:]
    for row in try db.query(
      """
      SELECT original_transaction_id, signed_at, subtype FROM app_store_notifications
      WHERE app_id = ? AND notification_type = 'DID_FAIL_TO_RENEW' AND original_transaction_id IS NOT NULL
      """, [.integer(appId)])
    {
      failures[try row.decode("original_transaction_id"), default: []].append(
        (
          day: StatsDay.of(Date(timeIntervalSince1970: try row.decode("signed_at"))),
          grace: try row.decode("subtype", as: String?.self) == "GRACE_PERIOD"
        ))
    }
    var totals: [SubscriptionRow: SubscriptionCounters] = [:]
    var contributions: [[SQLValue]] = []
    for (original, transactions) in byOriginal {
      let (dimensions, changes) = subscriptionContribution(
        transactions, failures: failures[original] ?? [], imported: { imported.contains($0) }
      ) { ads[$0] }
      guard !changes.isEmpty else { continue }
      for (where_, counters) in changes {
        let row = SubscriptionRow(dimensions: dimensions, where_: where_)
        totals[row] = totals[row].map { $0 + counters } ?? counters
      }
      let contribution = SubscriptionContribution(dimensions: dimensions, rows: changes)
      contributions.append(
        [.integer(appId), .text(original), json(contribution.dimensions), contribution.storedRows])
    }
    try insertRows(
      db, table: "stats_subscriptions", columns: "app_id, original_transaction_id, dimensions, changes", contributions)
    try bumpSubscriptionDays(db, appId: appId, totals.map { ($0.key.dimensions, $0.key.where_, $0.value) })
  }
}

/// What a subscription is reported by, besides the day, product, currency and environment of
/// each change: its storefront, its profile's Apple Ads campaign, ad group and keyword (0:
/// organic or unknown), and the paywall its first transaction is credited to.
struct SubscriptionDimensions: Codable, Hashable {
  var storefront: String
  var campaignId: Int64 = 0
  var adGroupId: Int64 = 0
  var keywordId: Int64 = 0
  var placementId: String
  var audienceId: String
  var variationId: String
  /// `import` when its profile came from a profile import (nil: `live`).
  var origin: String?
}

/// A subscription's contribution to `stats_subscription_days`.
typealias SubscriptionContribution = Contribution<SubscriptionDimensions, SubscriptionDay, SubscriptionCounters>

/// One row of `stats_subscription_days`: a subscription's dimensions and a change's day, product,
/// currency and environment.
struct SubscriptionRow: Hashable {
  var dimensions: SubscriptionDimensions
  var where_: SubscriptionDay
}

private struct SubscriptionTotalsRow: Hashable {
  var environment: String
  var day: Int64
  var currency: String
}
