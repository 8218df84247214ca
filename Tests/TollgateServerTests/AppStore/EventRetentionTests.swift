import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateServer

/// Raw flow views past the retention go, a batch per pass; the figures they made stay in the
/// rollups, each profile's first view stays for the cohort report, and the rebuild knows (SQLite
/// and PostgreSQL).
@Suite("Events retention")
struct EventRetentionTests {
  typealias F = StoreKitFixtures

  static let profiles = (0..<40).map { String(format: "00000000-0000-4000-8000-%012d", $0) }

  func views(_ store: any Store, appId: Int64) throws -> [Date] {
    try Self.profiles.flatMap { id in
      try store.recentEvents(appId: appId, profileId: id, limit: 100).map {
        try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse($0.receivedAt)
      }
    }
  }

  @Test(
    "old raw views go in small batches; rollups, first views and cohorts do not change",
    arguments: StoreFactory.available)
  func expire(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "retention")
    try RollupTests().populate(store, appId: app.id, seed: 5)
    let live = try store.rollupSnapshot(appId: app.id)
    let all = try views(store, appId: app.id)
    let cutoff = F.date(3.5)
    let old = all.filter { $0 < cutoff }.count
    #expect(old > 10 && old < all.count)
    #expect(try store.eventsExpiredBefore(appId: app.id) == nil)

    // 2 days of retention, 5.5 days after the start: views before day 3.5 go, 1 000 per pass.
    let time = ManualTime(F.date(5.5))
    let retention = EventRetention(store: store, days: 2, time: time, logger: Logger(level: .error))
    var passes: [Int] = []
    while true {
      let deleted = retention.pass()
      passes.append(deleted)
      if deleted == 0 { break }
    }
    #expect(passes == [old, 0])
    #expect(try store.expireEvents(before: cutoff, limit: 7) == 0)
    let kept = try views(store, appId: app.id)
    #expect(kept.count == all.count - old && kept.allSatisfy { $0 >= cutoff })
    #expect(try store.eventsExpiredBefore(appId: app.id) == cutoff)
    // Every figure stays.
    #expect(try store.rollupSnapshot(appId: app.id) == live)

    // A rebuild now has fewer raw views: impressions of expired days are gone (why the CLI
    // refuses it), but cohorts still know each profile's first paywall, and revenue is whole.
    try store.rebuildRollups(appId: app.id)
    let rebuilt = try store.rollupSnapshot(appId: app.id)
    func lines(_ snapshot: [String], _ prefixes: [String]) -> [String] {
      snapshot.filter { line in prefixes.contains { line.hasPrefix($0 + " ") } }
    }
    let keptTables = ["stats_cohort_profiles", "stats_cohort_segments", "stats_revenue", "stats_payer_revenue"]
    #expect(lines(rebuilt, keptTables) == lines(live, keptTables))
    #expect(lines(rebuilt, ["stats_daily"]) != lines(live, ["stats_daily"]))
  }

  @Test("a batch is bounded, and a later cutoff moves the mark forward only", arguments: StoreFactory.available)
  func batches(factory: StoreFactory) throws {
    let store = try factory.make()
    defer { store.close() }
    let app = try store.createApp(name: "batches")
    try RollupTests().populate(store, appId: app.id, seed: 6)
    let total = try views(store, appId: app.id).count
    #expect(try store.expireEvents(before: F.date(10), limit: 5) == 5)
    #expect(try store.eventsExpiredBefore(appId: app.id) == F.date(10))
    #expect(try store.expireEvents(before: F.date(1), limit: 5) >= 0)
    #expect(try store.eventsExpiredBefore(appId: app.id) == F.date(10))
    var deleted = 5
    while true {
      let batch = try store.expireEvents(before: F.date(10), limit: 5)
      #expect(batch <= 5)
      if batch == 0 { break }
      deleted += batch
    }
    let left = try views(store, appId: app.id)
    #expect(deleted >= total - 5 && left.isEmpty)
  }

  @Test("a database from before keeps each profile's first view, taken from its events, when it first opens")
  func firstViewsMigrate() throws {
    let path = temporaryDirectory().appendingPathComponent("old.sqlite").path
    let store = try SQLiteStore(path: path)
    let app = try store.createApp(name: "retention")
    try RollupTests().populate(store, appId: app.id, seed: 7)
    let live = try store.rollupSnapshot(appId: app.id)
    store.close()
    let old = try SQLiteConnection(path: path)
    try old.execute(
      """
      DROP TABLE profile_first_views; DROP TABLE events_expired; DROP INDEX events_by_time;
      DELETE FROM schema_migrations WHERE version = 13
      """)
    old.close()
    let upgraded = try SQLiteStore(path: path)
    defer { upgraded.close() }
    try upgraded.rebuildRollups(appId: app.id)
    #expect(try upgraded.rollupSnapshot(appId: app.id) == live)
  }
}
