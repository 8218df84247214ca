import Foundation
import TollgateAPI
import TollgateSupport

extension ConfigValidator.Validation {
  /// `settings`: whether test attribution is accepted, and how access levels are shared on a restore.
  mutating func settings(_ json: JSONValue?) -> (allowTestAttribution: Bool, sharing: AccessLevelSharing) {
    var allowTestAttribution = false
    var sharing = AccessLevelSharing.transfer
    if let settingsJSON = json,
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
    return (allowTestAttribution, sharing)
  }
}
