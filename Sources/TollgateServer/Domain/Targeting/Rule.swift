import Foundation
import TollgateAPI

/// A compiled audience rule. Rules are JSON in the style of MongoDB/GrowthBook conditions:
/// `{"attribute": {"$op": operand}}`, a bare value meaning `$eq`, several keys meaning
/// all of them, and `$and`, `$or`, `$nor`, `$not` to combine.
///
/// Evaluation is three-valued: `true`, `false`, or `nil` when the rule cannot be evaluated
/// (an operand of the wrong type for the attribute's value). `nil` propagates through
/// `$not`, and the caller treats it as "no match" and logs it.
indirect enum Rule: Sendable {
  case all([Rule])
  case any([Rule])
  case none([Rule])
  case not(Rule)
  case condition(attribute: String, Condition)

  /// Evaluates against flat attributes (`attribution.sources`, `custom.level`, …); `false`
  /// wins over `nil` in `$and` and `true` in `$or`, so it stops at the first decisive part.
  func evaluate(_ attributes: some RuleAttributes) -> Bool? {
    switch self {
    case .all(let rules):
      return Self.combine(rules.lazy.map { $0.evaluate(attributes) }, decisive: false)
    case .any(let rules):
      return Self.combine(rules.lazy.map { $0.evaluate(attributes) }, decisive: true)
    case .none(let rules):
      return Rule.any(rules).evaluate(attributes).map { !$0 }
    case .not(let rule):
      return rule.evaluate(attributes).map { !$0 }
    case .condition(let attribute, let condition):
      let value = attributes.value(of: attribute)
      return condition.evaluate(value == .null ? nil : value)
    }
  }

  /// Three-valued `$and` (`decisive` false) or `$or` (true): the first decisive part settles
  /// it; otherwise the result is unknown if any part is.
  static func combine(_ results: some Sequence<Bool?>, decisive: Bool) -> Bool? {
    var unknown = false
    for result in results {
      if result == decisive { return decisive }
      if result == nil { unknown = true }
    }
    return unknown ? nil : !decisive
  }

  /// Every attribute the rule reads.
  var attributeNames: Set<String> {
    switch self {
    case .all(let rules), .any(let rules), .none(let rules):
      return rules.reduce(into: []) { $0.formUnion($1.attributeNames) }
    case .not(let rule): return rule.attributeNames
    case .condition(let attribute, _): return [attribute]
    }
  }
}

/// One operator applied to an attribute's value (nil when the attribute is absent).
enum Condition: Sendable {
  case equal(JSONValue)
  case notEqual(JSONValue)
  case inList([JSONValue])
  case notInList([JSONValue])
  case containsAll([JSONValue])
  case order(Comparison, JSONValue)
  case exists(Bool)
  case regex(NSRegularExpression)
  case version(Comparison, SemanticVersion)
  case size(Int)
  case all([Condition])

  enum Comparison: String, Sendable {
    case gt, gte, lt, lte, eq, ne

    func holds<T: Comparable>(_ left: T, _ right: T) -> Bool {
      switch self {
      case .gt: return left > right
      case .gte: return left >= right
      case .lt: return left < right
      case .lte: return left <= right
      case .eq: return left == right
      case .ne: return left != right
      }
    }
  }

  func evaluate(_ value: JSONValue?) -> Bool? {
    switch self {
    case .exists(let wanted):
      return (value != nil) == wanted
    case .equal(let expected):
      guard let value else { return false }
      return Self.contains(value, expected)
    case .notEqual(let expected):
      guard let value else { return true }
      return !Self.contains(value, expected)
    case .inList(let list):
      guard let value else { return false }
      return Self.intersects(value, list)
    case .notInList(let list):
      guard let value else { return true }
      return !Self.intersects(value, list)
    case .containsAll(let list):
      guard let value else { return false }
      guard let elements = value.arrayValue else { return nil }
      return list.allSatisfy { wanted in elements.contains { Self.same($0, wanted) } }
    case .size(let count):
      guard let value else { return false }
      guard let elements = value.arrayValue else { return nil }
      return elements.count == count
    case .order(let comparison, let operand):
      guard let value else { return false }
      if let left = value.numberValue, let right = operand.numberValue {
        return comparison.holds(left, right)
      }
      if let left = value.stringValue, let right = operand.stringValue {
        return comparison.holds(left, right)
      }
      return nil
    case .regex(let expression):
      guard let value else { return false }
      guard let text = value.stringValue else { return nil }
      let range = NSRange(text.startIndex..., in: text)
      return expression.firstMatch(in: text, range: range) != nil
    case .version(let comparison, let operand):
      guard let value else { return false }
      guard let text = value.stringValue, let version = SemanticVersion(text) else { return nil }
      return comparison.holds(version, operand)
    case .all(let conditions):
      return Rule.combine(conditions.lazy.map { $0.evaluate(value) }, decisive: false)
    }
  }

  /// Equality where an array attribute "equals" a scalar it contains (MongoDB semantics),
  /// and numbers compare by value (1 equals 1.0).
  private static func contains(_ value: JSONValue, _ expected: JSONValue) -> Bool {
    if case .array(let elements) = value, expected.arrayValue == nil {
      return elements.contains { same($0, expected) }
    }
    return same(value, expected)
  }

  private static func intersects(_ value: JSONValue, _ list: [JSONValue]) -> Bool {
    if case .array(let elements) = value {
      return elements.contains { element in list.contains { same(element, $0) } }
    }
    return list.contains { same(value, $0) }
  }

  static func same(_ left: JSONValue, _ right: JSONValue) -> Bool {
    if let l = left.numberValue, let r = right.numberValue { return l == r }
    return left == right
  }
}
