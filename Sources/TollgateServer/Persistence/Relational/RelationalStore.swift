import Foundation
import TollgateAPI

/// A store on an SQL database: every `Store` method, written once for SQLite and
/// PostgreSQL. Statements use `?` placeholders and bound values only, never text built
/// from input; the dialect supplies the few statements that differ.
protocol RelationalStore: Store, AnyObject {
  var pool: ConnectionPool { get }
  /// Profiles kept in memory (nil: none).
  var profileCache: ProfileCache? { get }
  /// Connections for writes that may skip waiting for the disk (see `assign`).
  var relaxedPool: ConnectionPool { get }
  /// Writes first-time assignments in batches (with the profile cache only).
  var assignmentWriter: AssignmentWriter? { get }
  var dialect: SQLDialect { get }
}

extension RelationalStore {
  @discardableResult
  func with<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
    try pool.with(body)
  }

  public func close() {
    assignmentWriter?.close()
    relaxedPool.close()
    pool.close()
  }

  public var assignmentWrites: (pending: Int, written: Int, dropped: Int)? { assignmentWriter?.figures }

  /// The batch writer for a store with a profile cache; call `attachAssignmentWriter` once built.
  static func makeAssignmentWriter(_ cache: ProfileCache?, logger: Logger) -> AssignmentWriter? {
    guard cache != nil else { return nil }
    return AssignmentWriter(failed: { error in
      logger.warn("assignments not stored yet (retrying): \(error)")
    })
  }

  func attachAssignmentWriter() {
    assignmentWriter?.attach { [weak self] batch in try self?.storeAssignments(batch) }
  }
}

/// Column lists shared by several statements.
enum SQLColumns {
  static let profile =
    "id, version, customer_user_id, install, custom_attributes, applied_sources, created_at, updated_at, attribution, purchases"
  static let job = "app_id, profile_id, token_hash, token, status, attempts, not_found, next_attempt_at, last_error"
}
