import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The rollups recomputed from raw rows (events, transactions, profiles, first-launch
/// reports): `tollgate rollups rebuild` runs it, and the tests compare it with the live
/// rollups. The placement report's rows go through `PlacementProjection`, as live ones do.
extension RelationalStore {
  /// Tables derived from raw rows, dropped and rewritten by a rebuild.
  static var rollupTables: [String] {
    [
      "stats_daily", "stats_revenue", "stats_viewers", "stats_purchasers", "stats_trials", "stats_aa_profiles",
      "stats_apple_ads", "stats_apple_ads_revenue", "stats_payers", "stats_payer_revenue", "stats_subscriptions",
      "stats_subscription_days", "stats_subscription_totals", "stats_cohort_profiles", "stats_cohort_segments",
    ]
  }

  public func rollupSnapshot(appId: Int64) throws -> [String] {
    try with { db in
      var lines: [String] = []
      for table in Self.rollupTables {
        for row in try db.query("SELECT * FROM \(table) WHERE app_id = ?", [.integer(appId)]) {
          // Every cell in the table's column order: a dump to compare, not fields to read.
          let cells = row.values.map { value -> String in
            switch value {
            case .null: return "∅"
            case .integer(let number): return String(number)
            case .real(let number): return String(number)
            case .text(let text): return Int64(text).map(String.init) ?? text
            case .blob(let data): return data.base64EncodedString()
            }
          }
          // Counter rows that netted out to zero say nothing; a rebuild does not write them.
          let counters = Self.counterColumns[table] ?? 0
          if counters > 0, cells.suffix(counters).allSatisfy({ $0 == "0" }) { continue }
          lines.append("\(table) \(cells.joined(separator: " "))")
        }
      }
      return lines.sorted()
    }
  }

  /// How many trailing columns of each table are counters.
  static var counterColumns: [String: Int] {
    [
      "stats_daily": 6, "stats_revenue": 3, "stats_apple_ads": 3, "stats_apple_ads_revenue": 1,
      "stats_payer_revenue": 4, "stats_subscription_days": SubscriptionCounters.columns.count,
      "stats_subscription_totals": SubscriptionCounters.columns.count,
      "stats_cohort_segments": CohortCounters.columns.count,
    ]
  }

  public func rebuildRollups(appId: Int64) throws {
    try with { db in try db.transaction { try Self.rebuild(db, appId: appId) } }
  }

  /// Every app's rollups rebuilt inside the caller's transaction (a migration that adds rollups).
  static func rebuildAll(_ db: any SQLConnection) throws {
    for row in try db.query("SELECT id FROM apps") { try rebuild(db, appId: try row.decode("id")) }
  }

  /// One app's rollups, rewritten from raw rows inside the caller's transaction.
  static func rebuild(_ db: any SQLConnection, appId: Int64) throws {
    for table in Self.rollupTables { try db.query("DELETE FROM \(table) WHERE app_id = ?", [.integer(appId)]) }
    let app: [SQLValue] = [.integer(appId)]
    // The placement report's rows: every fact through the projection the live path applies.
    var changes = PlacementProjection.Changes()
    var viewers: [ProfileKey: PlacementProjection.First] = [:]
    var purchasers: [ProfileKey: PlacementProjection.First] = [:]
    var payers: [PayerKey: PlacementProjection.Payer] = [:]

    // Each profile's first view is a fact of its own (it outlives expired raw events).
    var firstViews: [String: FirstView] = [:]
    for row in try db.query(
      "SELECT profile_id, variation_id, received_at, seq FROM profile_first_views WHERE app_id = ?", app)
    {
      firstViews[try row.decode("profile_id")] = FirstView(
        variation: try row.decode("variation_id"), at: try row.decode("received_at"), seq: try row.decode("seq"))
    }

    for row in try db.query(
      "SELECT placement_id, audience_id, variation_id, profile_id, received_at FROM events WHERE app_id = ?", app)
    {
      let key = VariationKey(
        placement: try row.decode("placement_id"), audience: try row.decode("audience_id"),
        variation: try row.decode("variation_id"))
      let receivedAt = try row.decode("received_at", as: Double.self)
      let day = StatsDay.of(Date(timeIntervalSince1970: receivedAt))
      PlacementProjection.impression(key, day: day, into: &changes)
      let profile = try row.decode("profile_id", as: String.self)
      let viewer = ProfileKey(variation: key.variation, profile: profile)
      let view = PlacementProjection.First(variation: key, day: day)
      if let first = PlacementProjection.first("viewers", view, known: viewers[viewer], into: &changes) {
        viewers[viewer] = first
      }
    }

    var byOriginal: [String: [(TransactionPayload, VariationKey, String?)]] = [:]
    var byProfile: [String: [TransactionPayload]] = [:]
    for row in try db.query(
      """
      SELECT payload, attr_placement, attr_audience, attr_variation, attr_profile FROM app_store_transactions
      WHERE app_id = ?
      """, app)
    {
      let payload = try WireCoding.decoder.decode(TransactionPayload.self, from: try row.decode("payload"))
      let key = VariationKey(
        placement: try row.decode("attr_placement"), audience: try row.decode("attr_audience"),
        variation: try row.decode("attr_variation"))
      PlacementProjection.transaction(payload, key, into: &changes)
      let profile = try row.decode("attr_profile", as: String?.self)
      if payload.isPurchase, !key.variation.isEmpty, let profile {
        let purchaser = ProfileKey(variation: key.variation, profile: profile)
        let purchase = PlacementProjection.First(variation: key, day: payload.purchaseDay)
        if let first = PlacementProjection.first(
          "purchasers", purchase, known: purchasers[purchaser], into: &changes)
        {
          purchasers[purchaser] = first
        }
      }
      if payload.isPaid, !key.variation.isEmpty, let profile {
        let payer = PayerKey(variation: key.variation, profile: profile, currency: payload.currencyCode)
        if let after = PlacementProjection.payer(payers[payer], old: nil, new: payload, key, into: &changes) {
          payers[payer] = after
        }
      }
      byOriginal[payload.originalTransactionId, default: []].append((payload, key, profile))
      if let profile { byProfile[profile, default: []].append(payload) }
    }

    var trials: [[SQLValue]] = []
    for (original, transactions) in byOriginal {
      let facts = TrialFacts.of(transactions.map(\.0))
      guard let trialDay = facts.trialDay else { continue }
      let owner = Self.trialOwner(transactions.map { ($0.0, $0.1) })
      PlacementProjection.trial(facts, owner, into: &changes)
      trials.append(
        app + [
          .text(original), .text(owner.placement), .text(owner.audience), .text(owner.variation),
          .integer(trialDay), facts.convertedDay.map(SQLValue.integer) ?? .null,
        ])
    }
    try Self.insertRows(
      db, table: "stats_trials",
      columns: "app_id, original_transaction_id, placement_id, audience_id, variation_id, trial_day, converted_day",
      trials)

    for (table, map) in [("stats_viewers", viewers), ("stats_purchasers", purchasers)] {
      try Self.insertRows(
        db, table: table, columns: "app_id, variation_id, profile_id, placement_id, audience_id, first_day",
        map.map { who, first in
          app + [
            .text(who.variation), .text(who.profile), .text(first.variation.placement),
            .text(first.variation.audience), .integer(first.day),
          ]
        })
    }
    try Self.insertRows(
      db, table: "stats_payers",
      columns: "app_id, variation_id, profile_id, currency, placement_id, audience_id, first_day, net",
      payers.map { payer, figures in
        app + [
          .text(payer.variation), .text(payer.profile), .text(payer.currency),
          .text(figures.first.variation.placement), .text(figures.first.variation.audience),
          .integer(figures.first.day), .integer(figures.net),
        ]
      })
    try Self.apply(changes, db, appId: appId)

    var adsRows: [[SQLValue]] = []
    var adsChanges = AppleAdsProjection.Changes()
    var ads: [String: AppleAdsKey] = [:]
    let reported = Set(
      try db.query("SELECT profile_id FROM first_launch_reports WHERE app_id = ? AND aa_flow_in_time = 1", app)
        .map { try $0.decode("profile_id", as: String.self) })
    for row in try db.query(
      "SELECT id, created_at, attribution FROM profiles WHERE app_id = ? AND applied_sources LIKE ?",
      app + [.text("%\"\(appleAdsSource)\"%")])
    {
      let attribution = try WireCoding.decoder.decode(ProfileAttribution.self, from: try row.decode("attribution"))
      guard let payload = attribution.appleAds?.payload, let campaign = payload.campaignId else { continue }
      let profile = try row.decode("id", as: String.self)
      let group = AppleAdsKey(
        day: StatsDay.of(try row.decode("created_at")), campaign: campaign,
        adGroup: payload.adGroupId ?? 0, keyword: payload.keywordId ?? 0)
      let transactions = byProfile[profile] ?? []
      let inTime: Int64 = reported.contains(profile) ? 1 : 0
      let purchaser: Int64 = transactions.contains { $0.isPurchase } ? 1 : 0
      adsRows.append(
        app + [
          .text(profile), .integer(group.day), .integer(group.campaign), .integer(group.adGroup),
          .integer(group.keyword), .integer(inTime), .integer(purchaser),
        ])
      ads[profile] = group
      AppleAdsProjection.install(group, flowInTime: inTime == 1, purchaser: purchaser == 1, into: &adsChanges)
      for transaction in transactions { AppleAdsProjection.sale(group, transaction, into: &adsChanges) }
    }
    try Self.apply(adsChanges, db, appId: appId)
    try Self.insertRows(
      db, table: "stats_aa_profiles",
      columns: "app_id, profile_id, day, campaign_id, ad_group_id, keyword_id, flow_in_time, purchaser", adsRows)
    try rebuildSubscriptions(db, appId: appId, byOriginal, ads: ads)
    try rebuildCohorts(db, appId: appId, byProfile, ads: ads, firstViews: firstViews)
  }
}

/// A profile's first flow view, as the rebuild finds it.
struct FirstView {
  var variation: String
  var at: Double
  var seq: Int64
}

/// Rebuild map keys.
private struct ProfileKey: Hashable {
  var variation: String
  var profile: String
}

private struct PayerKey: Hashable {
  var variation: String
  var profile: String
  var currency: String
}
