/// What the SDK knows about the install, sent when a profile is created or updated.
public struct InstallMeta: Codable, Sendable, Hashable {
  /// The app's marketing version, e.g. `2.4.1`.
  public var appVersion: String?
  /// The OS version, e.g. `17.5`.
  public var osVersion: String?
  /// The device model identifier, e.g. `iPhone15,2`.
  public var deviceModel: String?
  /// The user's locale, e.g. `fr-FR`.
  public var locale: String?
  /// The App Store storefront country, ISO 3166 alpha-3 or alpha-2.
  public var storeCountry: String?
  /// The SDK's version.
  public var sdkVersion: String?

  /// Creates install meta; every field is optional.
  public init(
    appVersion: String? = nil, osVersion: String? = nil, deviceModel: String? = nil,
    locale: String? = nil, storeCountry: String? = nil, sdkVersion: String? = nil
  ) {
    self.appVersion = appVersion
    self.osVersion = osVersion
    self.deviceModel = deviceModel
    self.locale = locale
    self.storeCountry = storeCountry
    self.sdkVersion = sdkVersion
  }

  enum CodingKeys: String, CodingKey {
    case appVersion = "app_version"
    case osVersion = "os_version"
    case deviceModel = "device_model"
    case locale
    case storeCountry = "store_country"
    case sdkVersion = "sdk_version"
  }
}

/// `POST /v1/sdk/profiles`: the client generates the profile id (a UUID).
public struct CreateProfileRequest: Codable, Sendable, Hashable {
  /// Client-generated UUID; creating the same id twice returns the existing profile.
  public var profileId: String
  /// The app's own user id, if it has one.
  public var customerUserId: String?
  /// Install meta.
  public var install: InstallMeta?
  /// The AdServices attribution token, when the app has one at creation: handed over in
  /// the same request instead of a separate `POST …/attribution/apple-ads`.
  public var appleAdsToken: String?

  /// Creates a request.
  public init(
    profileId: String, customerUserId: String? = nil, install: InstallMeta? = nil, appleAdsToken: String? = nil
  ) {
    self.profileId = profileId
    self.customerUserId = customerUserId
    self.install = install
    self.appleAdsToken = appleAdsToken
  }

  enum CodingKeys: String, CodingKey {
    case profileId = "profile_id"
    case customerUserId = "customer_user_id"
    case install
    case appleAdsToken = "apple_ads_token"
  }
}

/// `PATCH /v1/sdk/profiles/{id}`: custom attributes to set (`null` removes a key), and
/// optionally new install meta or customer user id.
public struct UpdateProfileRequest: Codable, Sendable, Hashable {
  /// Keys to set; a `null` value removes the key.
  public var customAttributes: [String: JSONValue]?
  /// Replaces the customer user id when present.
  public var customerUserId: String?
  /// Replaces the fields of install meta that are present.
  public var install: InstallMeta?

  /// Creates a request.
  public init(
    customAttributes: [String: JSONValue]? = nil, customerUserId: String? = nil,
    install: InstallMeta? = nil
  ) {
    self.customAttributes = customAttributes
    self.customerUserId = customerUserId
    self.install = install
  }

  enum CodingKeys: String, CodingKey {
    case customAttributes = "custom_attributes"
    case customerUserId = "customer_user_id"
    case install
  }
}

/// A profile as the server returns it.
public struct ProfilePayload: Codable, Sendable, Hashable {
  /// The profile id (a UUID, lower-cased).
  public var id: String
  /// Grows by one on every change; clients keep the highest they have seen.
  public var version: Int64
  /// The app's own user id, if any.
  public var customerUserId: String?
  /// Install meta as last reported.
  public var install: InstallMeta
  /// Custom attributes set by the app.
  public var customAttributes: [String: JSONValue]
  /// Attribution sources applied to this profile (`apple_ads`, …); empty until one is.
  public var appliedAttributionSources: [String]
  /// Where each attribution source stands (`apple_ads` → `pending`, `applied`, …); absent
  /// for sources never sent.
  public var attributionStatus: [String: AttributionStatus]?
  /// Creation time, ISO 8601.
  public var createdAt: String
  /// Last change, ISO 8601.
  public var updatedAt: String
  /// Access levels by id (`premium` → …); empty until something is bought.
  public var accessLevels: [String: AccessLevelPayload] = [:]
  /// Auto-renewable subscriptions by product id.
  public var subscriptions: [String: SubscriptionPayload] = [:]
  /// Other purchases by product id.
  public var nonSubscriptions: [String: [NonSubscriptionPayload]] = [:]

  /// Creates a profile payload.
  public init(
    id: String, version: Int64, customerUserId: String?, install: InstallMeta,
    customAttributes: [String: JSONValue], appliedAttributionSources: [String],
    createdAt: String, updatedAt: String, attributionStatus: [String: AttributionStatus]? = nil,
    purchases: PurchasesPayload = PurchasesPayload()
  ) {
    self.accessLevels = purchases.accessLevels
    self.subscriptions = purchases.subscriptions
    self.nonSubscriptions = purchases.nonSubscriptions
    self.id = id
    self.version = version
    self.customerUserId = customerUserId
    self.install = install
    self.customAttributes = customAttributes
    self.appliedAttributionSources = appliedAttributionSources
    self.attributionStatus = attributionStatus
    self.createdAt = createdAt
    self.updatedAt = updatedAt
  }

  enum CodingKeys: String, CodingKey {
    case id, version, install
    case customerUserId = "customer_user_id"
    case customAttributes = "custom_attributes"
    case appliedAttributionSources = "applied_attribution_sources"
    case attributionStatus = "attribution_status"
    case createdAt = "created_at"
    case updatedAt = "updated_at"
    case accessLevels = "access_levels"
    case subscriptions
    case nonSubscriptions = "non_subscriptions"
  }

  /// Decodes; purchase fields are absent in profiles cached before purchases existed.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    id = try container.decode(String.self, forKey: .id)
    version = try container.decode(Int64.self, forKey: .version)
    customerUserId = try container.decodeIfPresent(String.self, forKey: .customerUserId)
    install = try container.decode(InstallMeta.self, forKey: .install)
    customAttributes = try container.decode([String: JSONValue].self, forKey: .customAttributes)
    appliedAttributionSources = try container.decode([String].self, forKey: .appliedAttributionSources)
    attributionStatus = try container.decodeIfPresent([String: AttributionStatus].self, forKey: .attributionStatus)
    createdAt = try container.decode(String.self, forKey: .createdAt)
    updatedAt = try container.decode(String.self, forKey: .updatedAt)
    accessLevels = try container.decodeIfPresent([String: AccessLevelPayload].self, forKey: .accessLevels) ?? [:]
    subscriptions = try container.decodeIfPresent([String: SubscriptionPayload].self, forKey: .subscriptions) ?? [:]
    nonSubscriptions =
      try container.decodeIfPresent([String: [NonSubscriptionPayload]].self, forKey: .nonSubscriptions) ?? [:]
  }
}
