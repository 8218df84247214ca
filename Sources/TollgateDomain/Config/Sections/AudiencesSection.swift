import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `audiences`: each audience's rule, compiled; `declared` holds every id given, valid or not (a
  /// reference to an invalid audience is not also "unknown"); `listPaths` where saved lists are first used.
  mutating func audiences(_ json: JSONValue?) -> (
    audiences: [String: CompiledConfig.Audience], declared: Set<String>, listPaths: [String: String]
  ) {
    var audiences: [String: CompiledConfig.Audience] = [:]
    // Ids declared, valid or not: a reference to an invalid audience is not also "unknown".
    var declaredAudiences: Set<String> = []
    var listPaths: [String: String] = [:]
    for (index, item) in array(json, at: "$.audiences").enumerated() {
      let path = "$.audiences[\(index)]"
      guard
        let object = object(item, at: path, required: ["id", "rule"], optional: ["name"]),
        let id = id(object["id"], at: "\(path).id")
      else { continue }
      if id == CompiledConfig.defaultAudienceId {
        fail("\(path).id", "\"default\" is reserved for the placement's default flow")
      }
      if !declaredAudiences.insert(id).inserted { fail("\(path).id", "duplicate audience id \(id)") }
      rules = RuleCompiler()
      let rule = object["rule"].flatMap { rules.compile($0, at: "\(path).rule") }
      problems += rules.problems
      listPaths.merge(rules.listPaths) { first, _ in first }
      if let rule, let ruleJSON = object["rule"] {
        audiences[id] = .init(
          id: id, name: string(object["name"], at: "\(path).name") ?? id, rule: rule,
          targetsAttribution: ConfigValidator.names(ruleJSON).contains { $0.hasPrefix("attribution.") })
      }
    }
    return (audiences, declaredAudiences, listPaths)
  }
}
