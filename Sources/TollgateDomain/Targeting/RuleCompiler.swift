import Foundation
import TollgateAPI
import TollgateSupport

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
  /// Each saved list the rules name, with the path of its first use.
  private(set) var listPaths: [String: String] = [:]
  /// Compiling the rule of an `$elemMatch`: its keys are fields of an array's object
  /// elements, not profile attributes.
  private var readingElementFields = false

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
        } else if !readingElementFields && !Self.isKnownAttribute(key) {
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
    case "$in", "$nin", "$all", "$ini", "$nini", "$alli":
      guard let values = operand.arrayValue else {
        fail(path, "\(name) takes an array, not \(operand.typeName)")
        return nil
      }
      let list = Condition.ValueList(values, caseInsensitive: name.hasSuffix("i"))
      switch name.dropLast(name.hasSuffix("i") ? 1 : 0) {
      case "$in": return .inList(list)
      case "$nin": return .notInList(list)
      default: return .containsAll(list)
      }
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
      if case .int(let count) = operand, count >= 0 { return .size(.equal(.int(count))) }
      guard let object = operand.objectValue, !object.isEmpty, object.keys.allSatisfy({ $0.hasPrefix("$") }) else {
        fail(path, "$size takes a non-negative integer or a condition such as {\"$gt\": 2}")
        return nil
      }
      return .size(condition(operand, at: path))
    case "$elemMatch":
      guard let object = operand.objectValue, !object.isEmpty else {
        fail(path, "$elemMatch takes a condition such as {\"$in\": [\"apple_ads\"]} or a rule on the elements' fields")
        return nil
      }
      if object.keys.allSatisfy({ $0.hasPrefix("$") }) && !object.keys.contains(where: Self.logical.contains) {
        return .elementMatch(.value(condition(operand, at: path)))
      }
      let outer = readingElementFields
      readingElementFields = true
      defer { readingElementFields = outer }
      return .elementMatch(.fields(rule(operand, at: path)))
    case "$type":
      guard let text = operand.stringValue, let type = Condition.ValueType(rawValue: text) else {
        let names = Condition.ValueType.allCases.map(\.rawValue).joined(separator: ", ")
        fail(path, "$type takes one of \(names)")
        return nil
      }
      return .type(type)
    case "$not":
      return .negated(condition(operand, at: path))
    case "$inGroup", "$notInGroup":
      guard let id = operand.stringValue, id.range(of: ConfigValidator.idPattern, options: .regularExpression) != nil
      else {
        fail(path, "\(name) takes a saved list's id (1–64 of A–Z a–z 0–9 _ -; PUT /v1/admin/lists/{id})")
        return nil
      }
      if listPaths[id] == nil { listPaths[id] = path }
      let member = Condition.inGroup(.init(id: id, list: nil))
      return name == "$inGroup" ? member : .negated(member)
    case "$regex", "$regexi":
      guard let pattern = operand.stringValue else {
        fail(path, "\(name) takes a string")
        return nil
      }
      let options: NSRegularExpression.Options = name == "$regexi" ? [.caseInsensitive] : []
      guard let expression = try? NSRegularExpression(pattern: pattern, options: options) else {
        fail(path, "not a valid regular expression: \(pattern)")
        return nil
      }
      return .regex(expression)
    case "$semver_eq", "$semver_ne", "$semver_gt", "$semver_gte", "$semver_lt", "$semver_lte",
      "$veq", "$vne", "$vgt", "$vgte", "$vlt", "$vlte":
      guard let text = operand.stringValue, let version = SemanticVersion(text) else {
        fail(path, "\(name) takes a version string such as \"2.4.1\"")
        return nil
      }
      let comparison = name.hasPrefix("$semver_") ? name.dropFirst("$semver_".count) : name.dropFirst("$v".count)
      return .version(Condition.Comparison(rawValue: String(comparison))!, version)
    default:
      fail(path, "unknown operator \(name)")
      return nil
    }
  }

  /// The operators that only combine rules (`$not` also tests a value, so it is not here).
  private static let logical: Set<String> = ["$and", "$or", "$nor"]
}
