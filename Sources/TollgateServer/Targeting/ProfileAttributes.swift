import Foundation
import TollgateAPI

/// The flat attributes rules are evaluated against, built from a stored profile.
enum ProfileAttributes {
  static func of(_ profile: ProfileRecord, now: Date) -> [String: JSONValue] {
    var attributes: [String: JSONValue] = [
      "attribution.sources": .array(profile.appliedSources.map(JSONValue.string)),
      "profile.age_days": .int(Int64(max(0, now.timeIntervalSince(profile.createdAt)) / 86_400)),
    ]
    let install = profile.install
    let strings: [(String, String?)] = [
      ("app.version", install.appVersion), ("device.os_version", install.osVersion),
      ("device.model", install.deviceModel), ("locale", install.locale),
      ("store_country", install.storeCountry), ("customer_user_id", profile.customerUserId),
    ]
    for (name, value) in strings {
      if let value { attributes[name] = .string(value) }
    }
    if profile.appliedSources.contains(appleAdsSource), let appleAds = profile.attribution.appleAds?.payload {
      let ids: [(String, Int64?)] = [
        ("campaign_id", appleAds.campaignId), ("ad_group_id", appleAds.adGroupId), ("keyword_id", appleAds.keywordId),
        ("org_id", appleAds.orgId), ("ad_id", appleAds.adId),
      ]
      for (name, value) in ids {
        if let value { attributes["attribution.apple_ads.\(name)"] = .int(value) }
      }
      let texts: [(String, String?)] = [
        ("country_or_region", appleAds.countryOrRegion), ("conversion_type", appleAds.conversionType),
        ("claim_type", appleAds.claimType),
      ]
      for (name, value) in texts {
        if let value { attributes["attribution.apple_ads.\(name)"] = .string(value) }
      }
    }
    for (key, value) in profile.customAttributes {
      attributes["custom.\(key)"] = value
    }
    return attributes
  }
}
