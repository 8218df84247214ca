import TollgateAPI
import TollgateSupport

/// The limits on custom attributes: at most 30 keys, keys `[A-Za-z0-9._-]{1,30}`, values
/// strings of at most 50 characters or numbers; `null` removes a key.
package enum CustomAttributes {
  static let maxKeys = 30
  static let maxKeyLength = 30
  static let maxStringLength = 50

  static func isValidKey(_ key: String) -> Bool {
    (1...maxKeyLength).contains(key.count)
      && key.unicodeScalars.allSatisfy {
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))
      }
  }

  /// Applies `changes` to `current`; returns the problems (with JSON paths) instead when
  /// any key or value is out of bounds, so nothing is half-applied.
  package static func apply(_ changes: [String: JSONValue], to current: [String: JSONValue]) -> Result<
    [String: JSONValue], DomainError
  > {
    var problems: [APIError.Detail] = []
    var result = current
    for key in changes.keys.sorted() {
      let path = "$.custom_attributes.\(key)"
      guard isValidKey(key) else {
        problems.append(.init(path: path, message: "keys are 1–30 characters of A–Z a–z 0–9 . _ -"))
        continue
      }
      switch changes[key]! {
      case .null: result[key] = nil
      case .int, .double: result[key] = changes[key]
      case .string(let text) where text.count <= maxStringLength: result[key] = changes[key]
      case .string:
        problems.append(.init(path: path, message: "strings are at most \(maxStringLength) characters"))
      case let other:
        problems.append(.init(path: path, message: "values are strings, numbers or null, not \(other.typeName)"))
      }
    }
    if problems.isEmpty && result.count > maxKeys {
      problems.append(
        .init(path: "$.custom_attributes", message: "at most \(maxKeys) keys (would be \(result.count))"))
    }
    return problems.isEmpty ? .success(result) : .failure(.validation(problems))
  }
}
