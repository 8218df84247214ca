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

    mutating func compile(_ json: JSONValue, revision: Int64) -> CompiledConfig? {
      guard
        let root = object(
          json, at: "$", required: ["flows", "placements"],
          optional: [
            "audiences", "settings", "app_store", "access_levels", "reporting", "webhooks", "apple_ads_api",
          ])
      else { return nil }
      var allowTestAttribution = false
      var sharing = AccessLevelSharing.transfer
      if let settingsJSON = root["settings"],
        let settings = object(
          settingsJSON, at: "$.settings", required: [], optional: ["allow_test_attribution", "access_level_sharing"])
      {
        switch settings["allow_test_attribution"] {
        case nil: break
        case .bool(let allowed)?: allowTestAttribution = allowed
        case let other?: fail("$.settings.allow_test_attribution", "must be true or false, not \(other.typeName)")
        }
        if let value = settings["access_level_sharing"] {
          if let text = value.stringValue, let chosen = AccessLevelSharing(rawValue: text) {
            sharing = chosen
          } else {
            fail("$.settings.access_level_sharing", "must be one of transfer, shared, off")
          }
        }
      }
      let appStore = root["app_store"].flatMap { appStoreSettings($0) }
      let reporting = root["reporting"].flatMap { reportingSettings($0) }
      let appleAdsAPI = root["apple_ads_api"].flatMap { appleAdsAPISettings($0) }
      var webhooks: [WebhookConfig] = []
      for (index, item) in array(root["webhooks"], at: "$.webhooks").enumerated() {
        let path = "$.webhooks[\(index)]"
        guard let object = object(item, at: path, required: ["id", "url", "events"]),
          let id = id(object["id"], at: "\(path).id")
        else { continue }
        if webhooks.contains(where: { $0.id == id }) { fail("\(path).id", "duplicate webhook id \(id)") }
        guard let text = string(object["url"], at: "\(path).url") else { continue }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
          fail("\(path).url", "an http(s) URL")
          continue
        }
        var events: Set<WebhookEventType> = []
        for (position, name) in array(object["events"], at: "\(path).events").enumerated() {
          guard let name = string(name, at: "\(path).events[\(position)]") else { continue }
          if name == "*" {
            events.formUnion(WebhookEventType.allCases)
          } else if let type = WebhookEventType(rawValue: name) {
            events.insert(type)
          } else {
            fail(
              "\(path).events[\(position)]",
              "unknown event \(name) (expected * or one of \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
          }
        }
        if events.isEmpty { fail("\(path).events", "name at least one event") }
        webhooks.append(WebhookConfig(id: id, url: url, events: events))
      }
      var accessLevels: [AccessLevelDefinition] = []
      for (index, item) in array(root["access_levels"], at: "$.access_levels").enumerated() {
        let path = "$.access_levels[\(index)]"
        guard let object = object(item, at: path, required: ["id", "products"]),
          let id = id(object["id"], at: "\(path).id")
        else { continue }
        if accessLevels.contains(where: { $0.id == id }) { fail("\(path).id", "duplicate access level id \(id)") }
        let products = array(object["products"], at: "\(path).products").enumerated().compactMap {
          string($1, at: "\(path).products[\($0)]")
        }
        if products.isEmpty { fail("\(path).products", "an access level needs at least one product") }
        accessLevels.append(AccessLevelDefinition(id: id, products: Set(products)))
      }

      var flows: [String: CompiledConfig.Flow] = [:]
      for (index, item) in array(root["flows"], at: "$.flows").enumerated() {
        let path = "$.flows[\(index)]"
        guard
          let object = object(
            item, at: path, required: ["id"], optional: ["name", "products", "remote_config", "paywall"]),
          let id = id(object["id"], at: "\(path).id")
        else { continue }
        if flows[id] != nil { fail("\(path).id", "duplicate flow id \(id)") }
        let products = array(object["products"], at: "\(path).products").enumerated().compactMap {
          string($1, at: "\(path).products[\($0)]")
        }
        var remoteConfigs: [String: JSONValue] = [:]
        if let configs = object["remote_config"] {
          if let byLocale = configs.objectValue {
            for (locale, value) in byLocale {
              if locale.range(of: "^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$", options: .regularExpression) == nil {
                fail("\(path).remote_config.\(locale)", "not a locale such as en, fr or pt-BR")
              }
              remoteConfigs[locale] = value
            }
          } else {
            fail("\(path).remote_config", "must be an object of locale → JSON")
          }
        }
        var document: JSONValue?
        if let json = object["paywall"] { document = paywall(json, at: "\(path).paywall", products: products) }
        flows[id] = .init(
          id: id, name: string(object["name"], at: "\(path).name") ?? id, products: products,
          remoteConfigs: remoteConfigs, paywall: document)
      }

      var audiences: [String: CompiledConfig.Audience] = [:]
      // Ids declared, valid or not: a reference to an invalid audience is not also "unknown".
      var declaredAudiences: Set<String> = []
      var listPaths: [String: String] = [:]
      for (index, item) in array(root["audiences"], at: "$.audiences").enumerated() {
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

      var placements: [String: CompiledConfig.Placement] = [:]
      var owners: [String: CompiledConfig.VariationOwner] = [:]
      var declaredPlacements: Set<String> = []
      for (index, item) in array(root["placements"], at: "$.placements").enumerated() {
        let path = "$.placements[\(index)]"
        guard
          let object = object(item, at: path, required: ["id", "default"], optional: ["targets"]),
          let placementId = id(object["id"], at: "\(path).id")
        else { continue }
        if !declaredPlacements.insert(placementId).inserted {
          fail("\(path).id", "duplicate placement id \(placementId)")
        }

        func variation(_ flowJSON: JSONValue?, audience: String, weight: Int, at flowPath: String)
          -> CompiledConfig.Variation?
        {
          guard let flowId = id(flowJSON, at: flowPath) else { return nil }
          guard flows[flowId] != nil else {
            fail(flowPath, "unknown flow \(flowId)")
            return nil
          }
          let variationId = CompiledConfig.variationId(placement: placementId, audience: audience, flow: flowId)
          owners[variationId] = .init(placementId: placementId, audienceId: audience, flowId: flowId)
          return .init(id: variationId, flowId: flowId, weight: weight)
        }

        var targets: [CompiledConfig.Target] = []
        var seenAudiences: Set<String> = []
        for (targetIndex, targetJSON) in array(object["targets"], at: "\(path).targets").enumerated() {
          let targetPath = "\(path).targets[\(targetIndex)]"
          guard
            let target = self.object(
              targetJSON, at: targetPath, required: ["audience"], optional: ["flow", "experiment"]),
            let audienceId = id(target["audience"], at: "\(targetPath).audience")
          else { continue }
          if !declaredAudiences.contains(audienceId) {
            fail("\(targetPath).audience", "unknown audience \(audienceId)")
          }
          if !seenAudiences.insert(audienceId).inserted {
            fail("\(targetPath).audience", "audience \(audienceId) is targeted twice in this placement")
          }
          switch (target["flow"], target["experiment"]) {
          case (let flow?, nil):
            if let chosen = variation(flow, audience: audienceId, weight: 100, at: "\(targetPath).flow") {
              targets.append(.init(audienceId: audienceId, choice: .flow(chosen)))
            }
          case (nil, let experimentJSON?):
            let experimentPath = "\(targetPath).experiment"
            guard
              let experiment = self.object(
                experimentJSON, at: experimentPath, required: ["name", "variations"], optional: ["decision_metric"]),
              let name = string(experiment["name"], at: "\(experimentPath).name")
            else { continue }
            var metric = DecisionMetric.revenuePerViewer
            if let value = experiment["decision_metric"] {
              if case .string(let text) = value, let chosen = DecisionMetric(rawValue: text) {
                metric = chosen
              } else {
                fail(
                  "\(experimentPath).decision_metric",
                  "one of \(DecisionMetric.allCases.map(\.rawValue).joined(separator: ", "))")
              }
            }
            var variations: [CompiledConfig.Variation] = []
            var total = 0
            let items = array(experiment["variations"], at: "\(experimentPath).variations")
            if items.count < 2 { fail("\(experimentPath).variations", "an experiment needs at least 2 variations") }
            for (variationIndex, variationJSON) in items.enumerated() {
              let variationPath = "\(experimentPath).variations[\(variationIndex)]"
              guard
                let fields = self.object(variationJSON, at: variationPath, required: ["flow", "weight"])
              else { continue }
              guard case .int(let weight) = fields["weight"], (0...100).contains(weight) else {
                fail("\(variationPath).weight", "weights are whole percentages 0–100")
                continue
              }
              total += Int(weight)
              if let chosen = variation(
                fields["flow"], audience: audienceId, weight: Int(weight), at: "\(variationPath).flow")
              {
                if variations.contains(where: { $0.flowId == chosen.flowId }) {
                  fail("\(variationPath).flow", "flow \(chosen.flowId) appears twice in this experiment")
                }
                variations.append(chosen)
              }
            }
            if total != 100 {
              fail("\(experimentPath).variations", "weights sum to \(total), not 100")
            }
            targets.append(
              .init(audienceId: audienceId, choice: .experiment(name: name, variations: variations, metric: metric)))
          default:
            fail(targetPath, "a target has exactly one of flow or experiment")
          }
        }
        guard
          let defaultVariation = variation(
            object["default"], audience: CompiledConfig.defaultAudienceId, weight: 100,
            at: "\(path).default")
        else { continue }
        placements[placementId] = .init(id: placementId, targets: targets, defaultVariation: defaultVariation)
      }

      var config = CompiledConfig(
        revision: revision, flows: flows, audiences: audiences, placements: placements,
        variationOwners: owners)
      config.allowTestAttribution = allowTestAttribution
      config.appStore = appStore
      config.accessLevels = accessLevels
      config.accessLevelSharing = sharing
      config.reporting = reporting
      config.appleAdsAPI = appleAdsAPI
      config.webhooks = webhooks
      config.savedLists = listPaths
      config.targeting = TargetingSchema(audiences: audiences.values.map(\.rule), accessLevels: accessLevels)
      return config
    }

    /// `reporting`: one currency to convert revenue into, with the operator's own rates.
    mutating func reportingSettings(_ json: JSONValue) -> ReportingSettings? {
      let path = "$.reporting"
      guard let object = object(json, at: path, required: ["currency"], optional: ["rates", "commission"]) else {
        return nil
      }
      var smallBusiness = false
      if let commission = object["commission"] {
        switch commission.stringValue {
        case "standard"?: smallBusiness = false
        case "small_business"?: smallBusiness = true
        default:
          fail(
            "\(path).commission", "standard (30 %, 15 % after a subscriber's first paid year) or small_business (15 %)")
        }
      }
      let pattern = "^[A-Z]{3}$"
      guard let currency = string(object["currency"], at: "\(path).currency") else { return nil }
      guard currency.range(of: pattern, options: .regularExpression) != nil else {
        fail("\(path).currency", "an ISO 4217 code such as USD")
        return nil
      }
      var rates: [String: Double] = [:]
      if let table = object["rates"] {
        guard let entries = table.objectValue else {
          fail("\(path).rates", "must be an object of currency → rate")
          return nil
        }
        for (code, value) in entries {
          let ratePath = "\(path).rates.\(code)"
          guard code.range(of: pattern, options: .regularExpression) != nil else {
            fail(ratePath, "an ISO 4217 code such as EUR")
            continue
          }
          guard let rate = value.numberValue, rate > 0, rate.isFinite else {
            fail(ratePath, "how many \(currency) one \(code) is worth: a positive number")
            continue
          }
          rates[code] = rate
        }
      }
      return ReportingSettings(currency: currency, rates: rates, smallBusiness: smallBusiness)
    }

    /// `app_store`: the bundle id and environments signed data must name.
    mutating func appStoreSettings(_ json: JSONValue) -> AppStoreSettings? {
      let path = "$.app_store"
      guard let object = object(json, at: path, required: ["bundle_id"], optional: ["app_apple_id", "environments"])
      else { return nil }
      let bundleId = string(object["bundle_id"], at: "\(path).bundle_id")
      if let bundleId, bundleId.isEmpty { fail("\(path).bundle_id", "must not be empty") }
      var appAppleId: Int64?
      switch object["app_apple_id"] {
      case nil: break
      case .int(let value)? where value > 0: appAppleId = value
      default: fail("\(path).app_apple_id", "must be Apple's numeric app id")
      }
      let known: Set<String> = ["Production", "Sandbox", "Xcode", "LocalTesting"]
      var environments: Set<String> = ["Production"]
      if let list = object["environments"] {
        environments = []
        for (index, item) in array(list, at: "\(path).environments").enumerated() {
          guard let name = string(item, at: "\(path).environments[\(index)]") else { continue }
          if known.contains(name) {
            environments.insert(name)
          } else {
            fail(
              "\(path).environments[\(index)]",
              "unknown environment \(name) (expected one of \(known.sorted().joined(separator: ", ")))")
          }
        }
        if environments.isEmpty { fail("\(path).environments", "must name at least one environment") }
      }
      guard let bundleId, !bundleId.isEmpty else { return nil }
      return AppStoreSettings(bundleId: bundleId, appAppleId: appAppleId, environments: environments)
    }
  }
}
