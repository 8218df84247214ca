import TollgateDomain
import TollgateSupport

/// Opens the store a `--database` value names: a `postgres://` or `postgresql://` URL, or
/// a SQLite file path.
public enum StoreLocation {
  /// Whether the value names PostgreSQL.
  public static func isPostgres(_ database: String) -> Bool {
    database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
  }

  /// The database `database` names, with `profileCache` profiles kept in memory in front of it
  /// (0: no cache); what it logs goes to `logger` (`--log-level`). `listenURL`: `database` leads
  /// through a transaction pooler and this is a direct connection to PostgreSQL
  /// (`--database-listen-url`, see `PostgresStore`).
  public static func open(
    _ database: String, listenURL: String? = nil, connections: Int? = nil, profileCache: Int = 0,
    logger: Logger = Logger()
  ) throws -> OpenedStore {
    if let listenURL, !(isPostgres(database) && isPostgres(listenURL)) {
      throw StoreError.database(
        "--database-listen-url is a postgres:// URL beside a PostgreSQL --database that leads through a pooler")
    }
    if isPostgres(database) {
      let store = try PostgresStore(url: database, connections: connections ?? 8, listenURL: listenURL)
      return OpenedStore(
        store, cache: profileCache > 0 ? CachedStore(store, capacity: profileCache, logger: logger) : nil)
    }
    let store = try SQLiteStore(path: database, connections: connections ?? 4)
    return OpenedStore(
      store, cache: profileCache > 0 ? CachedStore(store, capacity: profileCache, logger: logger) : nil)
  }
}
