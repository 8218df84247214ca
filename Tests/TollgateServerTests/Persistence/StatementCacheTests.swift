import Foundation
import Testing

@testable import TollgatePersistence

/// A connection keeps its prepared statements, but not without end: SQL with a placeholder per
/// id is a new text for every count, and a server lives for months.
@Suite("Statement caches", .timeLimit(.minutes(5)))
struct StatementCacheTests {
  /// Distinct texts, each answering the number it was made with.
  static func texts(_ count: Int) -> [(String, Int64)] {
    (0..<count).map { ("SELECT ? + \($0) AS n", Int64($0)) }
  }

  static func check(_ connection: some SQLConnection, limit: Int, count: () -> Int) throws {
    for (sql, number) in texts(limit * 3 + 7) {
      let row = try #require(try connection.query(sql, [.integer(1)]).first)
      #expect(try row.decode("n", as: Int64.self) == number + 1)
      #expect(count() <= limit)
    }
    // Kept statements still answer after the cache started over.
    let again = try #require(try connection.query("SELECT ? + 5 AS n", [.integer(1)]).first)
    #expect(try again.decode("n", as: Int64.self) == 6)
  }

  @Test("SQLite: past its limit a connection's cache starts over and every query still answers")
  func sqlite() throws {
    let connection = try SQLiteConnection(path: ":memory:")
    connection.statementLimit = 16
    try Self.check(connection, limit: 16) { connection.cachedStatements }
    connection.close()
  }

  @Test(
    "PostgreSQL: past its limit the prepared statements are dropped and every query still answers",
    .enabled(if: PostgresCluster.url != nil))
  func postgres() throws {
    let connection = try PostgresConnection(
      conninfo: try #require(PostgresCluster.url), session: .direct(settings: ["SET client_min_messages = warning"]))
    connection.statementLimit = 16
    try Self.check(connection, limit: 16) { connection.cachedStatements }
    let prepared = try #require(
      try connection.query("SELECT count(*) AS n FROM pg_prepared_statements", []).first)
    #expect(try prepared.decode("n", as: Int64.self) <= 17, "the server keeps no more than the connection knows")
  }

  @Test(
    "PostgreSQL: a lookup is planned with its values every time; a query's generic plan is reused",
    .enabled(if: PostgresCluster.url != nil))
  func lookupsPlannedWithValues() throws {
    let connection = try PostgresConnection(
      conninfo: try #require(PostgresCluster.url), session: .direct(settings: ["SET client_min_messages = warning"]))
    let query = "SELECT ? + 40 AS n", lookup = "SELECT ? + 41 AS n"
    for value: Int64 in 0..<8 {
      #expect(try connection.query(query, [.integer(value)]).first?.decode("n", as: Int64.self) == value + 40)
      #expect(try connection.lookup(lookup, [.integer(value)]).first?.decode("n", as: Int64.self) == value + 41)
    }
    // PostgreSQL settles on a generic plan after a prepared statement's fifth run and keeps it;
    // an unnamed statement is planned with the values bound to it and kept nowhere.
    let kept = try connection.query(
      "SELECT statement, generic_plans FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1 + 4_ AS n'", [])
    #expect(try kept.map { try $0.decode("statement", as: String.self) } == ["SELECT $1 + 40 AS n"])
    #expect(try kept.first?.decode("generic_plans", as: Int64.self) ?? 0 > 0)
  }

  @Test(
    "PostgreSQL through PgBouncer: the unnamed statements' texts are bounded too", .enabled(if: PgBouncer.url != nil))
  func pooled() throws {
    let database = try PgBouncer.freshDatabase()
    let connection = try PostgresConnection(
      conninfo: try #require(PgBouncer.url) + "/" + database, session: .pooled(settings: []))
    connection.statementLimit = 16
    try Self.check(connection, limit: 16) { connection.cachedStatements }
  }
}
