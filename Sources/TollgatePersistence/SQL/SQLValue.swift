import Foundation
import TollgateDomain
import TollgateSupport

/// A value bound to or read from SQL.
enum SQLValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob(Data)
}

extension SQLValue {
  /// Integers; PostgreSQL answers in text, so text is parsed.
  var int: Int64? {
    switch self {
    case .integer(let value): return value
    case .text(let value): return Int64(value)
    default: return nil
    }
  }

  var string: String? {
    if case .text(let value) = self { return value }
    return nil
  }

  var data: Data? {
    switch self {
    case .blob(let value): return value
    case .text(let value): return Data(value.utf8)
    default: return nil
    }
  }

  var double: Double? {
    switch self {
    case .real(let value): return value
    case .integer(let value): return Double(value)
    case .text(let value): return Double(value)
    default: return nil
    }
  }
}
