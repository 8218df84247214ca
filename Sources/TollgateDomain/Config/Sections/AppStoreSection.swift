import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
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
