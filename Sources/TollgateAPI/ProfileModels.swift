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

  /// Creates a request.
  public init(profileId: String, customerUserId: String? = nil, install: InstallMeta? = nil) {
    self.profileId = profileId
    self.customerUserId = customerUserId
    self.install = install
  }

  enum CodingKeys: String, CodingKey {
    case profileId = "profile_id"
    case customerUserId = "customer_user_id"
    case install
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

  /// Creates a profile payload.
  public init(
    id: String, version: Int64, customerUserId: String?, install: InstallMeta,
    customAttributes: [String: JSONValue], appliedAttributionSources: [String],
    createdAt: String, updatedAt: String, attributionStatus: [String: AttributionStatus]? = nil
  ) {
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
  }
}
