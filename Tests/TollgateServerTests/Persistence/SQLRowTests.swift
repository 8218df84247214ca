import Foundation
import Testing
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Rows are read by column name; what does not fit is an error that names the column.
@Suite("Rows by column name")
struct SQLRowTests {
  @Test("a missing column, a NULL or another type throws naming the column; optionals take NULL")
  func decoding() throws {
    let connection = try SQLiteConnection(path: temporaryDirectory().appendingPathComponent("rows.sqlite").path)
    defer { connection.close() }
    let row = try #require(
      try connection.query("SELECT 7 AS version, NULL AS label, 'seven' AS name, 1.5 AS at").first)
    #expect(try row.decode("version", as: Int64.self) == 7)
    #expect(try row.decode("label", as: String?.self) == nil)
    #expect(try row.decode("name", as: String.self) == "seven")
    #expect(try row.decode("at", as: Date.self) == Date(timeIntervalSince1970: 1.5))
    #expect(throws: StoreError.corruptRow("column label is NULL")) { try row.decode("label", as: String.self) }
    #expect(throws: StoreError.corruptRow("column name is not a Int64: text(\"seven\")")) {
      try row.decode("name", as: Int64.self)
    }
    do {
      _ = try row.decode("revision", as: Int64.self)
      Issue.record("a column the query did not select was read")
    } catch let error as StoreError {
      #expect("\(error)".contains("no column revision"))
    }
  }
}

/// The schema's steps keep the numbers databases have recorded.
@Suite("Migrations")
struct MigrationTests {
  @Test("each engine's steps are numbered 1… without gaps, named NNNN_what, names unique")
  func named() {
    for steps in [Migrations.sqlite, Migrations.postgres] {
      #expect(steps.map(\.version) == Array(1...Int64(steps.count)))
      for step in steps {
        #expect(step.name.hasPrefix(String(format: "%04d_", step.version)), "\(step.name)")
      }
      #expect(Set(steps.map(\.name)).count == steps.count)
    }
    // Steps shipped before they had names: SQLite 6, PostgreSQL 5.
    #expect(Migrations.sqlite.count >= 6 && Migrations.postgres.count >= 5)
  }
}
