import Foundation
import TollgateDomain
import TollgateSupport

/// One database connection, used by one thread at a time.
protocol SQLConnection: AnyObject {
  /// Runs one statement with bound values (`?` placeholders) and returns its rows.
  @discardableResult
  func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow]
  /// Runs a lookup whose best plan depends on its values (which index finds one subscription's
  /// rows): where plans are cached across executions (PostgreSQL's generic plans), it is
  /// planned with its values every time instead.
  @discardableResult
  func lookup(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow]
  /// Runs SQL without parameters or results.
  func execute(_ sql: String) throws
  /// Runs `body` in a transaction; rolls back when it throws.
  func transaction<T>(_ body: () throws -> T) throws -> T
  /// Rows changed by the last statement.
  var changes: Int { get }
}

extension SQLConnection {
  @discardableResult
  func query(_ sql: String) throws -> [SQLRow] { try query(sql, []) }
}
