import Foundation
import TollgateAPI
import TollgateSupport

/// The flat attributes rules are evaluated against, built from a stored profile.
enum ProfileAttributes {
  /// Every configured access level is present: a level the profile never had is inactive.
  static func of(_ profile: ProfileRecord, now: Date, accessLevels: [AccessLevelDefinition] = [])
    -> [String: JSONValue]
  {
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
    let purchases = profile.purchases
    attributes["purchases.count"] = .int(Int64(purchases.purchaseCount))
    attributes["subscription.state"] = .string(purchases.primarySubscription?.state.rawValue ?? "never")
    if let subscription = purchases.primarySubscription {
      attributes["subscription.product_id"] = .string(subscription.vendorProductId)
      attributes["subscription.will_renew"] = .bool(subscription.willRenew)
      attributes["subscription.is_trial"] = .bool(subscription.isTrial)
    }
    for level in accessLevels { attributes["access_levels.\(level.id).is_active"] = .bool(false) }
    for (id, level) in purchases.payload.accessLevels {
      attributes["access_levels.\(id).is_active"] = .bool(level.isActive)
    }
    for (key, value) in profile.customAttributes {
      attributes["custom.\(key)"] = value
    }
    return attributes
  }
}
