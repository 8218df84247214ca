/// Opens the store a `--database` value names: a `postgres://` or `postgresql://` URL, or
/// a SQLite file path.
public enum StoreLocation {
  /// Whether the value names PostgreSQL.
  public static func isPostgres(_ database: String) -> Bool {
    database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
  }

  /// The store for `database`.
  public static func open(_ database: String, connections: Int? = nil) throws -> any Store {
    if isPostgres(database) { return try PostgresStore(url: database, connections: connections ?? 8) }
    return try SQLiteStore(path: database, connections: connections ?? 4)
  }
}
