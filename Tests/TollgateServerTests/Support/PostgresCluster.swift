import Foundation
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The throw-away cluster `scripts/with-postgres.sh` started for this test run.
enum PostgresCluster {
  static let environment = ProcessInfo.processInfo.environment

  /// Its URL, or nil when the tests run without one (plain `swift test`).
  static var url: String? { environment["TOLLGATE_TEST_POSTGRES_URL"] }

  /// A fresh schema name: each store gets its own tables.
  static func freshSchema() -> String { "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }

  /// A store on a fresh schema (or on `schema`, to share it between instances).
  static func store(schema: String = freshSchema(), connections: Int = 3) throws -> PostgresStore {
    guard let url else { throw StoreError.unavailable("no test cluster") }
    return try PostgresStore(url: url, connections: connections, schema: schema)
  }

  /// A store on `schema` keeping `capacity` profiles in memory, as `--profile-cache` does.
  static func cachedStore(schema: String, capacity: Int) throws -> OpenedStore {
    let database = try store(schema: schema)
    return OpenedStore(database, cache: CachedStore(database, capacity: capacity))
  }

  /// Stops or starts the cluster (`pg_ctl stop -m fast` / `start`), as an outage would.
  static func pgctl(_ action: String) throws {
    guard let bin = environment["TOLLGATE_TEST_POSTGRES_BIN"], let data = environment["TOLLGATE_TEST_POSTGRES_DATA"],
      let opts = environment["TOLLGATE_TEST_POSTGRES_OPTS"]
    else { throw StoreError.unavailable("no test cluster") }
    var arguments = ["\(bin)/pg_ctl", "-D", data, "-w", "-l", data + "/../server.log"]
    arguments += action == "start" ? ["-o", opts, "start"] : ["-m", "fast", "stop"]
    let runAs = (environment["TOLLGATE_TEST_POSTGRES_RUNAS"] ?? "").split(separator: " ").map(String.init)
    _ = spawnAndWait(runAs + arguments)
  }
}

/// PgBouncer in transaction pooling mode in front of the test cluster (`scripts/with-postgres.sh`
/// starts it when Debian's `pgbouncer` is installed), handing out its server connections in turn.
enum PgBouncer {
  /// Its URL without a database, or nil without one.
  static var url: String? { PostgresCluster.environment["TOLLGATE_TEST_PGBOUNCER_URL"] }

  /// A new, empty database on the test cluster (a pooled store cannot keep a schema apart).
  static func freshDatabase() throws -> String {
    guard let direct = PostgresCluster.url else { throw StoreError.unavailable("no test cluster") }
    let name = PostgresCluster.freshSchema()
    let connection = try PostgresConnection(conninfo: direct, session: .direct(settings: []))
    try connection.execute("CREATE DATABASE \(name)")
    return name
  }

  /// The cluster's URL for `database`, bypassing PgBouncer.
  static func directURL(_ database: String) throws -> String {
    guard let direct = PostgresCluster.url, let slash = direct.lastIndex(of: "/") else {
      throw StoreError.unavailable("no test cluster")
    }
    return direct[...slash] + database
  }

  /// A store on `database` through PgBouncer, listening on a direct connection, as
  /// `--database-listen-url` makes it. The URL gives its own connect_timeout: with every test
  /// beside it, PgBouncer once took longer than the default 3 s to hand out a connection.
  static func store(database: String? = nil, connections: Int = 3) throws -> PostgresStore {
    guard let url else { throw StoreError.unavailable("no PgBouncer") }
    let database = try database ?? freshDatabase()
    return try PostgresStore(
      url: "\(url)/\(database)?connect_timeout=20", connections: connections, listenURL: try directURL(database))
  }
}
