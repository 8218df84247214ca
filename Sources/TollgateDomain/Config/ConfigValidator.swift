import Foundation
import TollgateAPI
import TollgateSupport

/// Validates a configuration document as a whole and compiles it. Every problem is
/// reported with its JSON path; a document with any problem changes nothing.
public enum ConfigValidator {
  package static let idPattern = "^[A-Za-z0-9_-]{1,64}$"

  /// Parses bytes and validates; the error lists every problem (422) or explains why the
  /// bytes are not JSON (400).
  public static func compile(_ data: Data, revision: Int64) throws(DomainError) -> CompiledConfig {
    let json: JSONValue
    do {
      json = try WireCoding.decoder.decode(JSONValue.self, from: data)
    } catch {
      throw .malformedJSON("configuration document")
    }
    var validator = Validation()
    guard let config = validator.compile(json, revision: revision), validator.problems.isEmpty else {
      throw .validation(validator.problems, code: .invalidConfig)
    }
    return config
  }

  /// Every key a rule's JSON uses, operators included.
  static func names(_ json: JSONValue) -> [String] {
    if let object = json.objectValue { return object.flatMap { [$0.key] + names($0.value) } }
    if let array = json.arrayValue { return array.flatMap(names) }
    return []
  }

  /// The validation state: problems found so far.
  struct Validation {
    var problems: [APIError.Detail] = []
    var rules = RuleCompiler()

    mutating func fail(_ path: String, _ message: String) {
      problems.append(.init(path: path, message: message))
    }

    /// Checks an object's keys against the known ones; unknown keys are typos, not extensions.
    mutating func object(
      _ json: JSONValue?, at path: String, required: Set<String>, optional: Set<String> = []
    ) -> [String: JSONValue]? {
      guard let json else {
        fail(path, "is required")
        return nil
      }
      guard let object = json.objectValue else {
        fail(path, "must be an object, not \(json.typeName)")
        return nil
      }
      for key in object.keys.sorted() where !required.contains(key) && !optional.contains(key) {
        fail(
          "\(path).\(key)",
          "unknown key (expected one of \((required.union(optional)).sorted().joined(separator: ", ")))")
      }
      for key in required.sorted() where object[key] == nil {
        fail("\(path).\(key)", "is required")
      }
      // An optional key set to null is the key left out: the document says so for every one.
      return object.filter { key, value in value != .null || !optional.contains(key) }
    }

    mutating func array(_ json: JSONValue?, at path: String) -> [JSONValue] {
      guard let json else { return [] }
      guard let array = json.arrayValue else {
        fail(path, "must be an array, not \(json.typeName)")
        return []
      }
      return array
    }

    mutating func id(_ json: JSONValue?, at path: String) -> String? {
      guard let json else { return nil }
      guard let text = json.stringValue, text.range(of: ConfigValidator.idPattern, options: .regularExpression) != nil
      else {
        fail(path, "ids are 1–64 characters of A–Z a–z 0–9 _ -")
        return nil
      }
      return text
    }

    mutating func string(_ json: JSONValue?, at path: String) -> String? {
      guard let json else { return nil }
      guard let text = json.stringValue else {
        fail(path, "must be a string, not \(json.typeName)")
        return nil
      }
      return text
    }

    /// The document: every section validated by its own validator, then joined.
    mutating func compile(_ json: JSONValue, revision: Int64) -> CompiledConfig? {
      guard
        let root = object(
          json, at: "$", required: ["flows", "placements"],
          optional: [
            "audiences", "settings", "app_store", "access_levels", "reporting", "webhooks", "apple_ads_api",
          ])
      else { return nil }
      let settings = settings(root["settings"])
      let appStore = root["app_store"].flatMap { appStoreSettings($0) }
      let reporting = root["reporting"].flatMap { reportingSettings($0) }
      let appleAdsAPI = root["apple_ads_api"].flatMap { appleAdsAPISettings($0) }
      let webhooks = webhooks(root["webhooks"])
      let accessLevels = accessLevels(root["access_levels"])
      let flows = flows(root["flows"])
      let audiences = audiences(root["audiences"])
      let placements = placements(root["placements"], flows: flows, declaredAudiences: audiences.declared)

      var config = CompiledConfig(
        revision: revision, flows: flows, audiences: audiences.audiences, placements: placements.placements,
        variationOwners: placements.owners)
      config.allowTestAttribution = settings.allowTestAttribution
      config.appStore = appStore
      config.accessLevels = accessLevels
      config.accessLevelSharing = settings.sharing
      config.reporting = reporting
      config.appleAdsAPI = appleAdsAPI
      config.webhooks = webhooks
      config.savedLists = audiences.listPaths
      config.targeting = TargetingSchema(
        audiences: audiences.audiences.values.map(\.rule), accessLevels: accessLevels)
      return config
    }
  }
}
