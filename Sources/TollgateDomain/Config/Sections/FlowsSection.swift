import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `flows`: each flow's products, remote configuration by locale and paywall document.
  mutating func flows(_ json: JSONValue?) -> [String: CompiledConfig.Flow] {
    var flows: [String: CompiledConfig.Flow] = [:]
    for (index, item) in array(json, at: "$.flows").enumerated() {
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
    return flows
  }
}
