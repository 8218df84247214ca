import Foundation
import TollgateDomain
import TollgateSupport

/// One result row, read by column name. A name the query did not select, a NULL where a value
/// is required, or a value of another type throws `StoreError.corruptRow` naming the column:
/// a column-order slip is an error, never a silent zero.
struct SQLRow: Sendable, Equatable {
  /// Column names of the result, shared by its rows.
  final class Columns: Sendable {
    let indexes: [String: Int]
    init(_ names: [String]) {
      var indexes: [String: Int] = [:]
      for (index, name) in names.enumerated() where indexes[name] == nil { indexes[name] = index }
      self.indexes = indexes
    }
  }

  let columns: Columns
  let values: [SQLValue]

  /// Same columns, same values.
  static func == (left: SQLRow, right: SQLRow) -> Bool {
    left.values == right.values && left.columns.indexes == right.columns.indexes
  }

  /// The value of column `name` as `T`; `T?` takes NULL as nil.
  func decode<T: SQLDecodable>(_ name: String, as type: T.Type = T.self) throws -> T {
    guard let index = columns.indexes[name] else {
      throw StoreError.corruptRow("no column \(name) in the row (columns: \(columns.indexes.keys.sorted()))")
    }
    let value = values[index]
    if let decoded = T.decode(value) { return decoded }
    throw StoreError.corruptRow(
      value == .null ? "column \(name) is NULL" : "column \(name) is not a \(T.self): \(value)")
  }
}

/// A Swift type a column value can be read as. PostgreSQL answers in text, so numbers parse.
protocol SQLDecodable {
  /// The value as this type; nil when it is NULL (non-optional types) or of another type.
  static func decode(_ value: SQLValue) -> Self?
}

extension Int64: SQLDecodable {
  static func decode(_ value: SQLValue) -> Int64? { value.int }
}

extension Int: SQLDecodable {
  static func decode(_ value: SQLValue) -> Int? { value.int.map(Int.init) }
}

extension Double: SQLDecodable {
  static func decode(_ value: SQLValue) -> Double? { value.double }
}

extension String: SQLDecodable {
  static func decode(_ value: SQLValue) -> String? { value.string }
}

extension Data: SQLDecodable {
  static func decode(_ value: SQLValue) -> Data? { value.data }
}

/// Times are stored as seconds since 1970.
extension Date: SQLDecodable {
  static func decode(_ value: SQLValue) -> Date? { value.double.map(Date.init(timeIntervalSince1970:)) }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
  static func decode(_ value: SQLValue) -> Wrapped?? {
    value == .null ? .some(nil) : Wrapped.decode(value).map { .some($0) }
  }
}
