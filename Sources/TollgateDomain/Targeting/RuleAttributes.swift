import TollgateAPI
import TollgateSupport

/// What a rule reads: the value of a flat attribute (`locale`, `custom.level`, …), nil when the
/// profile has none. A dictionary serves tests and fixtures; a packed profile serves requests
/// without building one.
package protocol RuleAttributes {
  func value(of name: String) -> JSONValue?
}

extension Dictionary: RuleAttributes where Key == String, Value == JSONValue {
  package func value(of name: String) -> JSONValue? { self[name] }
}
