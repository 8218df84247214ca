import Foundation
import TollgateAPI

/// Turns rule JSON into a `Rule`, collecting every problem with its JSON path instead of
/// stopping at the first, so a config import reports them all at once.
struct RuleCompiler {
  /// Attributes a rule may name, besides `custom.<key>`.
  static let attributes: Set<String> = [
    "attribution.sources",
    "attribution.apple_ads.campaign_id", "attribution.apple_ads.ad_group_id",
    "attribution.apple_ads.keyword_id", "attribution.apple_ads.org_id",
    "attribution.apple_ads.ad_id", "attribution.apple_ads.country_or_region",
    "attribution.apple_ads.conversion_type", "attribution.apple_ads.claim_type",
    "app.version", "device.os_version", "device.model", "locale", "store_country",
    "profile.age_days", "customer_user_id",
    "subscription.state", "subscription.product_id", "subscription.will_renew", "subscription.is_trial",
    "purchases.count",
  ]

  private(set) var problems: [APIError.Detail] = []

  /// Compiles a rule object found at `path`; returns nil when it has problems.
  mutating func compile(_ json: JSONValue, at path: String) -> Rule? {
    let before = problems.count
    let rule = rule(json, at: path)
    return problems.count == before ? rule : nil
  }

  private mutating func fail(_ path: String, _ message: String) {
    problems.append(APIError.Detail(path: path, message: message))
  }

  private mutating func rule(_ json: JSONValue, at path: String) -> Rule {
    guard let object = json.objectValue else {
      fail(path, "a rule is an object, not \(json.typeName)")
      return .all([])
    }
    var parts: [Rule] = []
    for key in object.keys.sorted() {
      let value = object[key]!
      let keyPath = "\(path).\(key)"
      switch key {
      case "$and", "$or", "$nor":
        guard let items = value.arrayValue, !items.isEmpty else {
          fail(keyPath, "\(key) takes a non-empty array of rules")
          continue
        }
        let rules = items.enumerated().map { rule($1, at: "\(keyPath)[\($0)]") }
        parts.append(key == "$and" ? .all(rules) : key == "$or" ? .any(rules) : .none(rules))
      case "$not":
        parts.append(.not(rule(value, at: keyPath)))
      default:
        if key.hasPrefix("$") {
          fail(keyPath, "unknown logical operator \(key) (use $and, $or, $nor, $not)")
        } else if !Self.isKnownAttribute(key) {
          fail(keyPath, "unknown attribute \(key)")
        } else {
          parts.append(.condition(attribute: key, condition(value, at: keyPath)))
        }
      }
    }
    return parts.count == 1 ? parts[0] : .all(parts)
  }

  static func isKnownAttribute(_ name: String) -> Bool {
    if attributes.contains(name) { return true }
    // `access_levels.<id>.is_active`, for any level id (levels may be added later).
    if name.hasPrefix("access_levels."), name.hasSuffix(".is_active") {
      let id = name.dropFirst("access_levels.".count).dropLast(".is_active".count)
      return String(id).range(of: ConfigValidator.idPattern, options: .regularExpression) != nil
    }
    guard name.hasPrefix("custom.") else { return false }
    return CustomAttributes.isValidKey(String(name.dropFirst("custom.".count)))
  }

  private mutating func condition(_ json: JSONValue, at path: String) -> Condition {
    // A bare value (or an object without operators) means equality.
    guard let object = json.objectValue, object.keys.contains(where: { $0.hasPrefix("$") }) else {
      return json == .null ? .exists(false) : .equal(json)
    }
    var conditions: [Condition] = []
    for key in object.keys.sorted() {
      let operand = object[key]!
      let keyPath = "\(path).\(key)"
      if let condition = condition(operator: key, operand, at: keyPath) {
        conditions.append(condition)
      }
    }
    return conditions.count == 1 ? conditions[0] : .all(conditions)
  }

  private mutating func condition(operator name: String, _ operand: JSONValue, at path: String)
    -> Condition?
  {
    switch name {
    case "$eq": return operand == .null ? .exists(false) : .equal(operand)
    case "$ne": return operand == .null ? .exists(true) : .notEqual(operand)
    case "$in", "$nin", "$all":
      guard let list = operand.arrayValue else {
        fail(path, "\(name) takes an array, not \(operand.typeName)")
        return nil
      }
      return name == "$in" ? .inList(list) : name == "$nin" ? .notInList(list) : .containsAll(list)
    case "$gt", "$gte", "$lt", "$lte":
      guard operand.numberValue != nil || operand.stringValue != nil else {
        fail(path, "\(name) takes a number or a string, not \(operand.typeName)")
        return nil
      }
      return .order(Condition.Comparison(rawValue: String(name.dropFirst()))!, operand)
    case "$exists":
      guard case .bool(let wanted) = operand else {
        fail(path, "$exists takes true or false")
        return nil
      }
      return .exists(wanted)
    case "$size":
      guard case .int(let count) = operand, count >= 0 else {
        fail(path, "$size takes a non-negative integer")
        return nil
      }
      return .size(Int(count))
    case "$regex":
      guard let pattern = operand.stringValue else {
        fail(path, "$regex takes a string")
        return nil
      }
      guard let expression = try? NSRegularExpression(pattern: pattern) else {
        fail(path, "not a valid regular expression: \(pattern)")
        return nil
      }
      return .regex(expression)
    case "$semver_eq", "$semver_ne", "$semver_gt", "$semver_gte", "$semver_lt", "$semver_lte":
      guard let text = operand.stringValue, let version = SemanticVersion(text) else {
        fail(path, "\(name) takes a version string such as \"2.4.1\"")
        return nil
      }
      return .version(Condition.Comparison(rawValue: String(name.dropFirst("$semver_".count)))!, version)
    default:
      fail(path, "unknown operator \(name)")
      return nil
    }
  }
}
