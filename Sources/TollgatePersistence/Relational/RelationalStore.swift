import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// A database on SQL: every repository, written once for SQLite and PostgreSQL. Statements
/// use `?` placeholders and bound values only, never text built from input; the dialect
/// supplies the few statements that differ.
protocol RelationalStore: ProfileCacheSource {
  var pool: ConnectionPool { get }
  /// Connections for writes that may skip waiting for the disk (see `assign`).
  var relaxedPool: ConnectionPool { get }
  var dialect: SQLDialect { get }
  /// Monthly partitions of raw flow views (PostgreSQL); nil where there are none.
  var eventMonths: EventMonths? { get }
}

extension RelationalStore {
  @discardableResult
  func with<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
    try pool.with(body)
  }

  public func close() {
    relaxedPool.close()
    pool.close()
  }
}

/// Column lists shared by several statements.
enum SQLColumns {
  static let profile =
    "id, version, customer_user_id, install, custom_attributes, applied_sources, created_at, updated_at, attribution, purchases"
  static let job = "app_id, profile_id, token_hash, token, status, attempts, not_found, next_attempt_at, last_error"
}
