import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `app_store`: the bundle id and environments signed data must name, and who signs the
  /// App Store Server API's tokens (`server_api`: `issuer_id`, `key_id`).
  mutating func appStoreSettings(_ json: JSONValue) -> AppStoreSettings? {
    let path = "$.app_store"
    guard
      let object = object(
        json, at: path, required: ["bundle_id"],
        optional: ["app_apple_id", "environments", "server_api", "refund_requests"])
    else { return nil }
    var serverAPI: AppStoreServerAPISettings?
    if let value = object["server_api"],
      let api = self.object(value, at: "\(path).server_api", required: ["issuer_id", "key_id"])
    {
      let issuer = string(api["issuer_id"], at: "\(path).server_api.issuer_id") ?? ""
      let key = string(api["key_id"], at: "\(path).server_api.key_id") ?? ""
      if UUID(uuidString: issuer) == nil {
        fail("\(path).server_api.issuer_id", "the issuer id from App Store Connect (a UUID)")
      }
      if key.range(of: "^[A-Z0-9]{10}$", options: .regularExpression) == nil {
        fail("\(path).server_api.key_id", "the In-App Purchase key's id (10 letters and digits)")
      }
      serverAPI = AppStoreServerAPISettings(issuerId: issuer.lowercased(), keyId: key)
    }
    let refundRequests = object["refund_requests"].flatMap { refundRequestSettings($0, at: "\(path).refund_requests") }
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
    return AppStoreSettings(
      bundleId: bundleId, appAppleId: appAppleId, environments: environments, serverAPI: serverAPI,
      refundRequests: refundRequests)
  }

  /// `app_store.refund_requests`: `answer` and `customer_consent` (both required, so the
  /// choice is written down), `sample_content_provided`, `preference`.
  mutating func refundRequestSettings(_ json: JSONValue, at path: String) -> RefundRequestSettings? {
    guard
      let object = object(
        json, at: path, required: ["answer", "customer_consent"], optional: ["sample_content_provided", "preference"])
    else { return nil }
    func flag(_ key: String) -> Bool? {
      guard let value = object[key] else { return nil }
      guard case .bool(let flag) = value else {
        fail("\(path).\(key)", "must be true or false")
        return nil
      }
      return flag
    }
    var preference: String?
    switch object["preference"] {
    case nil, .null?: break
    case .string(let value)? where RefundRequestSettings.preferences[value] != nil: preference = value
    default:
      fail(
        "\(path).preference",
        "one of \(RefundRequestSettings.preferences.keys.sorted().joined(separator: ", ")), or null for none")
    }
    return RefundRequestSettings(
      answer: flag("answer") ?? false, customerConsent: flag("customer_consent") ?? false,
      sampleContentProvided: flag("sample_content_provided") ?? false, preference: preference)
  }
}
