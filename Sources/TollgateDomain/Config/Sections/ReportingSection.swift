import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
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
}
