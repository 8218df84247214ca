import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Counters a per-entity rollup adds up, as a fixed list of integers (the rollup's columns).
protocol RollupCounters: Hashable {
  init(values: [Int64])
  var values: [Int64] { get }
  /// The rollup's counter columns, one per value.
  static var columns: [String] { get }
}

extension SubscriptionCounters: RollupCounters {}
extension CohortCounters: RollupCounters {}

/// What one entity (a subscription, an installed profile) contributes to a rollup — its
/// dimensions and its rows — as kept beside it, so a recomputation applies only the difference.
struct Contribution<Dimensions: Codable & Equatable, Where: ContributionKey, Counters: RollupCounters>: Equatable {
  var dimensions: Dimensions
  var rows: [Where: Counters]

  /// The rows as the `changes` column keeps them (`ContributionText`), sorted, so the stored
  /// text is the same however it was made.
  var storedRows: SQLValue {
    .text(ContributionText.encode(rows.sorted { $0.key < $1.key }.map { ($0.key, $0.value.values) }))
  }

  /// What to add to the rollup to go from `before` to this: with the same dimensions only the
  /// rows that differ (a renewal touches one row, not the history); otherwise every old row out
  /// and every new one in. Rows that net to zero are left out.
  func changes(from before: Contribution?) -> [(Dimensions, Where, Counters)] {
    func negated(_ counters: Counters) -> Counters { Counters(values: counters.values.map { -$0 }) }
    func sum(_ a: Counters, _ b: Counters) -> Counters { Counters(values: zip(a.values, b.values).map { $0 + $1 }) }
    var out: [(Dimensions, Where, Counters)] = []
    if let before, before.dimensions == dimensions {
      var difference = rows
      for (where_, counters) in before.rows {
        difference[where_] = difference[where_].map { sum($0, negated(counters)) } ?? negated(counters)
      }
      out = difference.map { (dimensions, $0.key, $0.value) }
    } else {
      out =
        (before?.rows ?? [:]).map { (before!.dimensions, $0.key, negated($0.value)) }
        + rows.map { (dimensions, $0.key, $0.value) }
    }
    return out.filter { $0.2.values.contains { $0 != 0 } }
  }
}

extension RelationalStore {
  /// The contribution stored for entity `id` (`RollupQuery.subscriptionContribution`,
  /// `.cohortContribution`).
  static func storedContribution<D, W, C>(
    _ db: any SQLConnection, _ query: RollupQuery, appId: Int64, id: String, pending: PendingRollups?
  ) throws -> Contribution<D, W, C>? {
    guard let row = try rollupRows(db, appId: appId, query, id, pending: pending).first else { return nil }
    let dimensions = try WireCoding.decoder.decode(
      D.self, from: Data(try row.decode("dimensions", as: String.self).utf8))
    let entries = try ContributionText.decode(try row.decode("changes", as: String.self), as: W.self)
    guard entries.allSatisfy({ $0.counters.count == C.columns.count }) else {
      throw StoreError.database("\(query.table) of \(id): a row without its \(C.columns.count) counters")
    }
    return Contribution(
      dimensions: dimensions,
      rows: Dictionary(entries.map { ($0.key, C(values: $0.counters)) }, uniquingKeysWith: { a, _ in a }))
  }

  /// Keeps `contribution` as entity `id`'s: at once, or with the batch `pending` keeps them for.
  static func saveContribution<D, W, C>(
    _ db: any SQLConnection, table: String, idColumn: String, appId: Int64, id: String,
    _ contribution: Contribution<D, W, C>, pending: PendingRollups?
  ) throws {
    let row: [SQLValue] = [.integer(appId), .text(id), json(contribution.dimensions), contribution.storedRows]
    if let pending, pending.contributions != nil {
      pending.contributions?[table, default: PendingRollups.KeptContributions(idColumn: idColumn)].rows[id] = row
      return
    }
    try db.query(
      """
      INSERT INTO \(table) (app_id, \(idColumn), dimensions, changes) VALUES (?, ?, ?, ?)
      ON CONFLICT (app_id, \(idColumn)) DO UPDATE SET dimensions = excluded.dimensions, changes = excluded.changes
      """, row)
  }

  /// The rows of `query` for one entity: as `pending` read them for many at once, or read now.
  static func rollupRows(
    _ db: any SQLConnection, appId: Int64, _ query: RollupQuery, _ id: String, pending: PendingRollups?
  ) throws -> [SQLRow] {
    try pending?.reads.rows(db, appId: appId, query, id) ?? RollupReads.rows(db, appId: appId, query, id)
  }

  /// An Apple Ads install's group from its `stats_aa_profiles` row.
  static func appleAdsKey(_ row: SQLRow) throws -> AppleAdsKey {
    AppleAdsKey(
      day: try row.decode("day"), campaign: try row.decode("campaign_id"), adGroup: try row.decode("ad_group_id"),
      keyword: try row.decode("keyword_id"))
  }

  /// Adds counter rows to a rollup `table` whose primary key is `app_id` and `keys`, many rows a
  /// statement (rows that net to zero are left out).
  static func bumpCounters(
    _ db: any SQLConnection, table: String, appId: Int64, keys: [String], counters: [String],
    _ rows: [(key: [SQLValue], counters: [Int64])]
  ) throws {
    let changed = rows.filter { $0.counters.contains { $0 != 0 } }
    let tuple = "(" + Array(repeating: "?", count: 1 + keys.count + counters.count).joined(separator: ", ") + ")"
    for range in statementRanges(changed.count, limit: 512) {
      let chunk = changed[range]
      try db.query(
        """
        INSERT INTO \(table) (app_id, \(keys.joined(separator: ", ")), \(counters.joined(separator: ", ")))
        VALUES \(Array(repeating: tuple, count: chunk.count).joined(separator: ", "))
        ON CONFLICT (app_id, \(keys.joined(separator: ", "))) DO UPDATE SET
        \(counters.map { "\($0) = \(table).\($0) + excluded.\($0)" }.joined(separator: ", "))
        """, chunk.flatMap { [.integer(appId)] + $0.key + $0.counters.map(SQLValue.integer) })
    }
  }
}
