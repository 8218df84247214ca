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
  /// (0: no cache); what it logs goes to `logger` (`--log-level`).
  public static func open(
    _ database: String, connections: Int? = nil, profileCache: Int = 0, logger: Logger = Logger()
  ) throws -> OpenedStore {
    if isPostgres(database) {
      let store = try PostgresStore(url: database, connections: connections ?? 8)
      return OpenedStore(
        store, cache: profileCache > 0 ? CachedStore(store, capacity: profileCache, logger: logger) : nil)
    }
    let store = try SQLiteStore(path: database, connections: connections ?? 4)
    return OpenedStore(
      store, cache: profileCache > 0 ? CachedStore(store, capacity: profileCache, logger: logger) : nil)
  }
}
