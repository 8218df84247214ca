import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Raw flow views past the retention go, a batch per pass; the figures they made stay in the
/// rollups, each profile's first view stays for the cohort report, and the rebuild knows (SQLite
/// and PostgreSQL).
@Suite("Events retention")
struct EventRetentionTests {
  typealias F = StoreKitFixtures

  static let profiles = (0..<40).map { String(format: "00000000-0000-4000-8000-%012d", $0) }

  func views(_ store: any Database, appId: Int64) throws -> [Date] {
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
    try RollupTests().populate(store, appId: app.id, seed: 5, imports: 0)
    let live = try store.rollupSnapshot(appId: app.id)
    let all = try views(store, appId: app.id)
    let cutoff = F.date(3.5)
    let old = all.filter { $0 < cutoff }.count
    #expect(old > 10 && old < all.count)
    #expect(try store.eventsExpiredBefore(appId: app.id) == nil)

    // 2 days of retention, 5.5 days after the start: views before day 3.5 go, 1 000 per pass.
    let time = ManualTime(F.date(5.5))
    let retention = EventRetention(eventLog: store, days: 2, time: time, logger: Logger(level: .error))
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
    try RollupTests().populate(store, appId: app.id, seed: 6, imports: 0)
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
    try RollupTests().populate(store, appId: app.id, seed: 7, imports: 0)
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

  static func view(_ id: String?, profile: Int, at date: Date) -> EventRecord {
    EventRecord(
      eventId: id, profileId: profiles[profile % profiles.count], placementId: "onboarding", audienceId: "default",
      variationId: "onboarding:default:a", flowId: "a", receivedAt: date)
  }

  static func partitions(_ store: PostgresStore) throws -> Set<String> {
    Set(
      try store.with { db in
        try db.query(
          """
          SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = pg_inherits.inhrelid
          WHERE pg_inherits.inhparent = 'events'::regclass
          """
        ).map { try $0.decode("name", as: String.self) }
      })
  }

  @Test(
    "PostgreSQL: views go into monthly partitions; the retention drops past months whole, then the rest row by row",
    .enabled(if: PostgresCluster.url != nil))
  func monthlyPartitions() throws {
    let store = try PostgresCluster.store()
    defer { store.close() }
    let app = try store.createApp(name: "months")
    // Months after the one partitioning started in (before it, the old table holds them).
    let base = EventMonths.month(of: Date()) + 3
    func at(_ month: Int, day: Double) -> Date { EventMonths.start(of: base + month).addingTimeInterval(day * 86_400) }
    var batch: [EventRecord] = (0..<5).map { Self.view("m0-\($0)", profile: $0, at: at(0, day: Double($0))) }
    batch += [2, 4, 15, 20].map { Self.view("m1-\($0)", profile: $0, at: at(1, day: Double($0))) }
    batch += (0..<3).map { Self.view(nil, profile: $0, at: at(2, day: Double($0))) }
    #expect(try store.recordEvents(appId: app.id, batch) == 12)
    let made = try Self.partitions(store)
    for month in 0...3 { #expect(made.contains(EventMonths.table(of: base + month)), "month \(month)") }
    #expect(made.contains("events_before_partitions") && made.contains("events_default"))
    // A client id seen in one month is refused in another.
    #expect(try store.recordEvents(appId: app.id, [Self.view("m0-0", profile: 0, at: at(2, day: 5))]) == 0)

    // Retention to day 10 of month 1: month 0 goes whole (5), month 1's days 2 and 4 row by row.
    let cutoff = at(1, day: 10)
    let retention = EventRetention(
      eventLog: store, days: 30, time: ManualTime(cutoff.addingTimeInterval(30 * 86_400)), logger: Logger(level: .error)
    )
    #expect(retention.pass() == 7)
    #expect(retention.pass() == 0)
    let left = try Self.partitions(store)
    #expect(!left.contains(EventMonths.table(of: base)))
    #expect(left.contains(EventMonths.table(of: base + 1)))
    let kept = try views(store, appId: app.id)
    #expect(kept.count == 5 && kept.allSatisfy { $0 >= cutoff })
    #expect(try store.eventsExpiredBefore(appId: app.id) == cutoff)
    // Client ids are kept only as long as their views: an id of an expired view is new again.
    #expect(try store.recordEvents(appId: app.id, [Self.view("m0-1", profile: 1, at: at(2, day: 6))]) == 1)
  }

  @Test(
    "PostgreSQL: a database from before partitioning keeps its views and its client ids",
    .enabled(if: PostgresCluster.url != nil))
  func upgradeToPartitions() throws {
    let schema = PostgresCluster.freshSchema()
    var old: PostgresConnection? = try PostgresConnection(
      conninfo: try #require(PostgresCluster.url),
      session: .direct(settings: [
        "SET client_min_messages = warning", "CREATE SCHEMA \(schema)", "SET search_path TO \(schema)",
      ]))
    try old?.execute(
      "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)")
    for migration in Migrations.postgres where migration.version < 13 {
      try old?.execute(migration.sql)
      try old?.query("INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)", [.integer(migration.version)])
    }
    try old?.query("INSERT INTO apps (id, name, created_at) VALUES (1, 'old', 0)")
    for (index, id) in ["a", "b", nil].enumerated() {
      try old?.query(
        """
        INSERT INTO events (app_id, event_id, profile_id, placement_id, audience_id, variation_id, flow_id, received_at)
        VALUES (1, ?, ?, 'onboarding', 'default', 'onboarding:default:a', 'a', ?)
        """,
        [
          id.map(SQLValue.text) ?? .null, .text(Self.profiles[index]),
          .real(F.date(Double(index)).timeIntervalSince1970),
        ])
    }
    old = nil  // disconnects
    let store = try PostgresCluster.store(schema: schema)
    defer { store.close() }
    #expect(try views(store, appId: 1).count == 3)
    #expect(try store.recordEvents(appId: 1, [Self.view("a", profile: 5, at: Date())]) == 0, "an old client id")
    #expect(try store.recordEvents(appId: 1, [Self.view("c", profile: 5, at: Date())]) == 1)
    #expect(try views(store, appId: 1).count == 4)
    #expect(try Self.partitions(store).contains("events_before_partitions"))
  }
}
