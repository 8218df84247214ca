import Foundation
import TollgateAPI
import TollgateSupport

/// A profile brought from before Tollgate: what one line of an import says, checked.
public struct ImportedProfile: Sendable, Hashable {
  /// The profile as stored: its install time is `createdAt`, Apple Ads attribution applied.
  public var profile: ProfileRecord
  /// App Store transaction ids known for the customer: their history is fetched from Apple.
  public var transactionIds: [String]
  /// The environment those transactions are in (`Production` unless the line says).
  public var environment: String

  public init(profile: ProfileRecord, transactionIds: [String], environment: String) {
    self.profile = profile
    self.transactionIds = transactionIds
    self.environment = environment
  }
}

/// One line of a profile import (NDJSON): `profile_id` (a UUID) or `customer_user_id` (a
/// profile id is minted from it, the same on every import), `installed_at` (ISO 8601, not in
/// the future), `store_country`, `app_version`, `locale`, `custom_attributes`, `apple_ads`
/// as the previous provider resolved it (`campaign_id`, `ad_group_id`, `keyword_id`,
/// `org_id`, `ad_id`, `conversion_type`, `country_or_region`, `claimed_at`), and
/// `transaction_ids` with their `environment`. A line either imports whole or is refused
/// with every problem at its path.
public enum ProfileImportLine {
  static let keys: Set<String> = [
    "profile_id", "customer_user_id", "installed_at", "store_country", "app_version", "locale", "custom_attributes",
    "apple_ads", "transaction_ids", "environment",
  ]
  static let appleAdsKeys: Set<String> = [
    "campaign_id", "ad_group_id", "keyword_id", "org_id", "ad_id", "conversion_type", "country_or_region",
    "claimed_at",
  ]
  /// Transaction ids per line: a customer's history is found from any one of them.
  static let maximumTransactionIds = 20

  /// The profile a line describes, or its problems; `now` bounds `installed_at`.
  public static func parse(_ json: JSONValue, appId: Int64, now: Date) -> Result<ImportedProfile, DomainError> {
    guard let object = json.objectValue else {
      return .failure(DomainError.validation([.init(path: "$", message: "each line is a JSON object")]))
    }
    var problems: [APIError.Detail] = []
    func fail(_ path: String, _ message: String) { problems.append(.init(path: path, message: message)) }
    for key in object.keys.sorted() where !keys.contains(key) {
      fail("$.\(key)", "unknown key (expected one of \(keys.sorted().joined(separator: ", ")))")
    }
    func text(_ key: String, max: Int) -> String? {
      switch object[key] {
      case nil, .null?: return nil
      case .string(let value)? where (1...max).contains(value.count): return value
      default:
        fail("$.\(key)", "a string of 1–\(max) characters")
        return nil
      }
    }
    let customer = text("customer_user_id", max: 200)
    var id: String?
    if let given = text("profile_id", max: 36) {
      if let uuid = UUID(uuidString: given) {
        id = uuid.uuidString.lowercased()
      } else {
        fail("$.profile_id", "a UUID")
      }
    } else if let customer {
      id = mintedId(customer: customer, appId: appId)
    } else if problems.isEmpty {
      fail("$.profile_id", "give profile_id or customer_user_id")
    }
    var installed: Date?
    switch object["installed_at"] {
    case .string(let value)?:
      if let date = isoDate(value), date <= now.addingTimeInterval(300) {
        installed = date
      } else {
        fail("$.installed_at", "an ISO 8601 time, not in the future (e.g. 2025-03-14T09:26:53Z)")
      }
    default: fail("$.installed_at", "is required: when the app was installed (ISO 8601)")
    }
    var install = InstallMeta()
    // An alpha-2 code is kept as the storefront's alpha-3, the spelling the SDK sends.
    install.storeCountry = text("store_country", max: 3).map(PeerExport.storefront)
    install.appVersion = text("app_version", max: 64)
    install.locale = text("locale", max: 35)
    var custom: [String: JSONValue] = [:]
    switch object["custom_attributes"] {
    case nil, .null?: break
    case .object(let changes)?:
      switch CustomAttributes.apply(changes, to: [:]) {
      case .success(let applied): custom = applied
      case .failure(let error): problems += error.details ?? []
      }
    default: fail("$.custom_attributes", "an object")
    }
    var attribution = ProfileAttribution()
    var sources: [String] = []
    switch object["apple_ads"] {
    case nil, .null?: break
    case .object(let ads)?:
      for key in ads.keys.sorted() where !appleAdsKeys.contains(key) {
        fail("$.apple_ads.\(key)", "unknown key (expected one of \(appleAdsKeys.sorted().joined(separator: ", ")))")
      }
      func number(_ key: String, required: Bool = false) -> Int64? {
        switch ads[key] {
        case .int(let value)? where value > 0: return value
        case .string(let value)? where Int64(value).map({ $0 > 0 }) == true: return Int64(value)
        case nil, .null?:
          if required { fail("$.apple_ads.\(key)", "is required: Apple's numeric id") }
          return nil
        default:
          fail("$.apple_ads.\(key)", "Apple's numeric id")
          return nil
        }
      }
      func word(_ key: String, _ allowed: Set<String>? = nil) -> String? {
        switch ads[key] {
        case nil, .null?: return nil
        case .string(let value)? where allowed?.contains(value) ?? (1...64).contains(value.count): return value
        default:
          fail("$.apple_ads.\(key)", allowed.map { "one of \($0.sorted().joined(separator: ", "))" } ?? "a string")
          return nil
        }
      }
      let payload = AppleAdsPayload(
        attribution: true, orgId: number("org_id"), campaignId: number("campaign_id", required: true),
        adGroupId: number("ad_group_id", required: true), keywordId: number("keyword_id"), adId: number("ad_id"),
        countryOrRegion: word("country_or_region"),
        conversionType: word("conversion_type", ["Download", "Redownload", "PreOrder"]), claimType: nil,
        clickDate: nil)
      var claimed: Date?
      if case .string(let value)? = ads["claimed_at"] {
        claimed = isoDate(value)
        if claimed == nil { fail("$.apple_ads.claimed_at", "an ISO 8601 time") }
      } else if ads["claimed_at"] != nil, ads["claimed_at"] != .null {
        fail("$.apple_ads.claimed_at", "an ISO 8601 time")
      }
      let resolved = claimed ?? installed ?? now
      attribution.appleAds = AppleAdsRecord(payload: payload, test: false, clickDate: claimed, resolvedAt: resolved)
      attribution.status = ["apple_ads": .applied]
      sources = ["apple_ads"]
    default: fail("$.apple_ads", "an object")
    }
    var transactions: [String] = []
    switch object["transaction_ids"] {
    case nil, .null?: break
    case .array(let items)? where items.count <= maximumTransactionIds:
      for (index, item) in items.enumerated() {
        switch item {
        case .string(let value)
        where (1...32).contains(value.utf8.count) && value.utf8.allSatisfy({ (0x30...0x39).contains($0) }):
          transactions.append(value)
        case .int(let value) where value > 0: transactions.append(String(value))
        default: fail("$.transaction_ids[\(index)]", "an App Store transaction id (digits)")
        }
      }
    default: fail("$.transaction_ids", "an array of up to \(maximumTransactionIds) App Store transaction ids")
    }
    var environment = "Production"
    switch object["environment"] {
    case nil, .null?: break
    case .string(let value)? where ["Production", "Sandbox"].contains(value): environment = value
    default: fail("$.environment", "Production or Sandbox (of the transactions)")
    }
    guard problems.isEmpty, let id, let installed else { return .failure(DomainError.validation(problems)) }
    var profile = ProfileRecord(
      id: id, customerUserId: customer, install: install, createdAt: installed, updatedAt: installed)
    profile.customAttributes = custom
    profile.attribution = attribution
    profile.appliedSources = sources
    return .success(
      ImportedProfile(profile: profile, transactionIds: Array(Set(transactions)).sorted(), environment: environment))
  }

  /// The profile id of a customer user id: a UUID (version 5 layout) from the app and the id,
  /// so importing the same customer again names the same profile.
  public static func mintedId(customer: String, appId: Int64) -> String {
    var bytes = Digest.sha256(Data("tollgate-import:\(appId):\(customer)".utf8)).prefix(16).map { $0 }
    bytes[6] = (bytes[6] & 0x0F) | 0x50
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    let hex = Digest.hex(bytes)
    let chars = Array(hex)
    return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
  }

  /// An ISO 8601 time (fractional seconds and offsets allowed) or a bare date (midnight UTC).
  /// Format styles are values: building a date formatter per line cost more than the rest of it.
  static func isoDate(_ text: String) -> Date? {
    if let date = try? Self.fractional.parse(text) { return date }
    if let date = try? Self.internet.parse(text) { return date }
    // The date-only style stops where the date does: only a bare date may use it.
    return text.utf8.count == 10 ? try? Self.day.parse(text) : nil
  }

  static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
  static let internet = Date.ISO8601FormatStyle()
  static let day = Date.ISO8601FormatStyle().year().month().day()
}
