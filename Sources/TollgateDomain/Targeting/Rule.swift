import Foundation
import TollgateAPI
import TollgateSupport

/// A compiled audience rule. Rules are JSON in the style of MongoDB/GrowthBook conditions:
/// `{"attribute": {"$op": operand}}`, a bare value meaning `$eq`, several keys meaning
/// all of them, and `$and`, `$or`, `$nor`, `$not` to combine.
///
/// Evaluation is three-valued: `true`, `false`, or `nil` when the rule cannot be evaluated
/// (an operand of the wrong type for the attribute's value). `nil` propagates through
/// `$not`, and the caller treats it as "no match" and logs it.
package indirect enum Rule: Sendable {
  case all([Rule])
  case any([Rule])
  case none([Rule])
  case not(Rule)
  case condition(attribute: String, Condition)

  /// Evaluates against flat attributes (`attribution.sources`, `custom.level`, …); `false`
  /// wins over `nil` in `$and` and `true` in `$or`, so it stops at the first decisive part.
  package func evaluate(_ attributes: some RuleAttributes) -> Bool? {
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

  /// The saved lists the rule names (`$inGroup`, `$notInGroup`).
  var listIds: Set<String> {
    switch self {
    case .all(let rules), .any(let rules), .none(let rules):
      return rules.reduce(into: []) { $0.formUnion($1.listIds) }
    case .not(let rule): return rule.listIds
    case .condition(_, let condition): return condition.listIds
    }
  }

  /// The rule with its saved lists' values in place (a list missing from `lists` stays
  /// unbound: it cannot be evaluated).
  func binding(_ lists: [String: SavedList]) -> Rule {
    switch self {
    case .all(let rules): return .all(rules.map { $0.binding(lists) })
    case .any(let rules): return .any(rules.map { $0.binding(lists) })
    case .none(let rules): return .none(rules.map { $0.binding(lists) })
    case .not(let rule): return .not(rule.binding(lists))
    case .condition(let attribute, let condition): return .condition(attribute: attribute, condition.binding(lists))
    }
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
package indirect enum Condition: Sendable {
  case equal(JSONValue)
  case notEqual(JSONValue)
  case inList(ValueList)
  case notInList(ValueList)
  case containsAll(ValueList)
  case order(Comparison, JSONValue)
  case exists(Bool)
  case regex(NSRegularExpression)
  case version(Comparison, SemanticVersion)
  /// `$size`: the array's length meets the condition (`$size: 2` is `$size: {"$eq": 2}`).
  case size(Condition)
  /// `$elemMatch`: some element of the array matches.
  case elementMatch(ElementMatch)
  /// `$type`: the value is of the named JSON type.
  case type(ValueType)
  /// `$not` inside an attribute's condition.
  case negated(Condition)
  /// `$inGroup`: the value is in a saved list (`$notInGroup` is its negation).
  case inGroup(GroupReference)
  case all([Condition])

  /// A saved list named by a rule, and its values once the configuration is bound to them.
  package struct GroupReference: Sendable {
    let id: String
    var list: SavedList?
  }

  package enum Comparison: String, Sendable {
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

  /// The operand of `$in`, `$nin`, `$all` and their case-insensitive forms (`$ini`, `$nini`,
  /// `$alli`), whose strings are kept lowercased and compared with the value's lowercased.
  package struct ValueList: Sendable {
    let values: [JSONValue]
    let caseInsensitive: Bool

    init(_ values: [JSONValue], caseInsensitive: Bool = false) {
      self.caseInsensitive = caseInsensitive
      self.values = caseInsensitive ? values.map(Self.folded) : values
    }

    func contains(_ value: JSONValue) -> Bool {
      let probe = caseInsensitive ? Self.folded(value) : value
      return values.contains { Condition.same(probe, $0) }
    }

    static func folded(_ value: JSONValue) -> JSONValue {
      if case .string(let text) = value { return .string(text.lowercased()) }
      return value
    }
  }

  /// What `$elemMatch` asks of an element: a condition on the element itself
  /// (`{"$gt": 2}`), or a rule on the fields of an object element (`{"id": "x"}`).
  package enum ElementMatch: Sendable {
    case value(Condition)
    case fields(Rule)
  }

  /// GrowthBook's type names for `$type`. Profiles never hold null (setting a custom
  /// attribute to null removes it), so an absent value is both `null` and `undefined`.
  package enum ValueType: String, Sendable, CaseIterable {
    case string, number, boolean, array, object, null, undefined

    func matches(_ value: JSONValue?) -> Bool {
      switch (self, value) {
      case (.null, nil), (.undefined, nil), (.null, .null?), (.undefined, .null?): return true
      case (.string, .string?), (.number, .int?), (.number, .double?), (.boolean, .bool?), (.array, .array?),
        (.object, .object?):
        return true
      default: return false
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
      let have = ValueList(elements, caseInsensitive: list.caseInsensitive)
      return list.values.allSatisfy { have.contains($0) }
    case .size(let condition):
      guard let value else { return false }
      guard let elements = value.arrayValue else { return nil }
      return condition.evaluate(.int(Int64(elements.count)))
    case .elementMatch(let match):
      guard let value else { return false }
      guard let elements = value.arrayValue else { return nil }
      return Rule.combine(
        elements.lazy.map { element -> Bool? in
          switch match {
          case .value(let condition): return condition.evaluate(element == .null ? nil : element)
          case .fields(let rule): return element.objectValue.flatMap { rule.evaluate(ElementFields(object: $0)) }
          }
        }, decisive: true)
    case .type(let type):
      return type.matches(value)
    case .negated(let condition):
      return condition.evaluate(value).map { !$0 }
    case .inGroup(let group):
      guard let value else { return false }
      guard let list = group.list else { return nil }
      return list.contains(value)
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

  /// The saved lists the condition names.
  var listIds: Set<String> {
    switch self {
    case .inGroup(let group): return [group.id]
    case .size(let inner), .negated(let inner): return inner.listIds
    case .elementMatch(.value(let inner)): return inner.listIds
    case .elementMatch(.fields(let rule)): return rule.listIds
    case .all(let conditions): return conditions.reduce(into: []) { $0.formUnion($1.listIds) }
    default: return []
    }
  }

  func binding(_ lists: [String: SavedList]) -> Condition {
    switch self {
    case .inGroup(let group): return .inGroup(GroupReference(id: group.id, list: lists[group.id]))
    case .size(let inner): return .size(inner.binding(lists))
    case .negated(let inner): return .negated(inner.binding(lists))
    case .elementMatch(.value(let inner)): return .elementMatch(.value(inner.binding(lists)))
    case .elementMatch(.fields(let rule)): return .elementMatch(.fields(rule.binding(lists)))
    case .all(let conditions): return .all(conditions.map { $0.binding(lists) })
    default: return self
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

  private static func intersects(_ value: JSONValue, _ list: ValueList) -> Bool {
    if case .array(let elements) = value {
      return elements.contains { list.contains($0) }
    }
    return list.contains(value)
  }

  static func same(_ left: JSONValue, _ right: JSONValue) -> Bool {
    if let l = left.numberValue, let r = right.numberValue { return l == r }
    return left == right
  }
}

/// The fields of an object element, as `$elemMatch`'s rule reads them: by name, or by a
/// dotted path into nested objects.
struct ElementFields: RuleAttributes {
  let object: [String: JSONValue]

  func value(of name: String) -> JSONValue? {
    if let direct = object[name] { return direct }
    var current = JSONValue.object(object)
    for part in name.split(separator: ".") {
      guard let next = current.objectValue?[String(part)] else { return nil }
      current = next
    }
    return current
  }
}
