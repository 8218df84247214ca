import Foundation
import TollgateAPI
import TollgateSupport

/// Another paywall platform's export read as profile import lines: rows (transactions or
/// events) grouped by customer into one line each — the customer's ids, their first-seen or
/// install time, store country, attributes, and the App Store original transaction ids Apple's
/// history is fetched from. docs/migrating.md maps every column.
public enum PeerExport: String, Sendable, CaseIterable {
  /// RevenueCat's Scheduled Data Exports, Transactions feed (CSV; the command line reads it
  /// gzipped too).
  case revenuecat
  /// Adapty's S3 / Google Cloud Storage events export (CSV).
  case adapty

  /// One customer, as their rows add up.
  struct Customer {
    var profileId: String?
    var customerUserId: String?
    var mintFrom: String
    var installed: Date?
    var country: String?
    var attributes: [String: JSONValue] = [:]
    var originals: [String] = []
    var sandbox = false
    /// The CSV line the customer first appears on (refusals name it).
    var firstLine = 0
  }

  /// The import lines of a whole export (`reader`: its CSV, read row by row, so only the
  /// customers are held, not the file), one per customer in the order they first appear (with
  /// the CSV line they first appear on), and the rows that could not be read (line, why).
  /// Throws what reading the input throws.
  public func lines(_ reader: CSVReader) throws -> (
    lines: [(line: Int, value: JSONValue)], skipped: [(line: Int, reason: String)]
  ) {
    var reader = reader
    var customers: [String: Customer] = [:]
    var order: [String] = []
    var skipped: [(Int, String)] = []
    let required: Set<String> =
      switch self {
      case .revenuecat: ["rc_original_app_user_id", "first_seen_time"]
      case .adapty: ["profile_id", "install_date"]
      }
    let missing = required.subtracting(reader.header)
    guard missing.isEmpty else {
      return ([], [(1, "the header lacks \(missing.sorted().joined(separator: ", ")) (is this a \(rawValue) export?)")])
    }
    while let row = try reader.next() {
      let key: String
      switch self {
      case .revenuecat: key = row["rc_original_app_user_id"] ?? ""
      case .adapty: key = row["profile_id"] ?? ""
      }
      guard !key.isEmpty else {
        skipped.append((reader.line, "no customer id"))
        continue
      }
      var customer = customers[key] ?? Customer(mintFrom: key, firstLine: reader.line)
      if customers[key] == nil { order.append(key) }
      switch self {
      case .revenuecat: Self.revenueCat(row, into: &customer)
      case .adapty: Self.adapty(row, into: &customer)
      }
      customers[key] = customer
    }
    return (order.compactMap { key in customers[key].map { ($0.firstLine, Self.line($0)) } }, skipped)
  }

  /// `rc_last_seen_app_user_id_alias` names the customer unless it is RevenueCat's anonymous
  /// id; `first_seen_time` is the install; `country` only when `country_source` is `from_sdk`
  /// (the store's; alpha-2, kept as the storefront's alpha-3); App Store rows give `original_store_transaction_id`; custom subscriber
  /// attributes keep their values.
  static func revenueCat(_ row: [String: String], into customer: inout Customer) {
    if let alias = row["rc_last_seen_app_user_id_alias"], !alias.isEmpty, !alias.hasPrefix("$RCAnonymousID") {
      customer.customerUserId = alias
    } else if let original = row["rc_original_app_user_id"], !original.hasPrefix("$RCAnonymousID") {
      customer.customerUserId = original
    }
    if let seen = row["first_seen_time"].flatMap(revenueCatDate) {
      customer.installed = min(customer.installed ?? seen, seen)
    }
    if row["country_source"] == "from_sdk", let country = row["country"], !country.isEmpty {
      customer.country = Self.storefront(country)
    }
    if row["store"] == "app_store", let original = row["original_store_transaction_id"], !original.isEmpty,
      !customer.originals.contains(original)
    {
      customer.originals.append(original)
      if row["is_sandbox"] == "true" { customer.sandbox = true }
    }
    if let text = row["custom_subscriber_attributes"], let attributes = json(text)?.objectValue {
      for (name, entry) in attributes { customer.attributes[name] = entry.objectValue?["value"] ?? entry }
    }
  }

  /// `profile_id` (a UUID) stays the profile's id; `customer_user_id`, `install_date`,
  /// `store_country`; App Store rows give `original_transaction_id` and `environment`;
  /// `attributes` keep their values.
  static func adapty(_ row: [String: String], into customer: inout Customer) {
    if let id = row["profile_id"], let uuid = UUID(uuidString: id) { customer.profileId = uuid.uuidString.lowercased() }
    if let user = row["customer_user_id"], !user.isEmpty { customer.customerUserId = user }
    if let installed = row["install_date"].flatMap(ProfileImportLine.isoDate) ?? row["install_date"].flatMap(adaptyDate)
    {
      customer.installed = min(customer.installed ?? installed, installed)
    }
    if let country = row["store_country"], !country.isEmpty { customer.country = Self.storefront(country) }
    if row["store"] == "app_store", let original = row["original_transaction_id"], !original.isEmpty,
      !customer.originals.contains(original)
    {
      customer.originals.append(original)
      if row["environment"] == "Sandbox" { customer.sandbox = true }
    }
    if let text = row["attributes"], let attributes = json(text)?.objectValue {
      for (name, value) in attributes { customer.attributes[name] = value }
    }
  }

  /// The import line of a customer; attributes Tollgate cannot keep (keys or values out of
  /// bounds) are left out rather than refusing the customer.
  static func line(_ customer: Customer) -> JSONValue {
    var object: [String: JSONValue] = [:]
    if let id = customer.profileId { object["profile_id"] = .string(id) }
    if let user = customer.customerUserId {
      object["customer_user_id"] = .string(user)
    } else if customer.profileId == nil {
      object["customer_user_id"] = .string(customer.mintFrom)
    }
    if let installed = customer.installed { object["installed_at"] = .string(Timestamp.string(installed)) }
    if let country = customer.country, (1...3).contains(country.count) { object["store_country"] = .string(country) }
    // The first attributes by name that Tollgate can keep, up to its limit.
    let kept = customer.attributes.sorted { $0.key < $1.key }.filter { name, value in
      value != .null && (try? CustomAttributes.apply([name: value], to: [:]).get()) != nil
    }.prefix(CustomAttributes.maxKeys)
    if !kept.isEmpty { object["custom_attributes"] = .object(Dictionary(uniqueKeysWithValues: Array(kept))) }
    if !customer.originals.isEmpty {
      object["transaction_ids"] = .array(customer.originals.prefix(20).map(JSONValue.string))
      object["environment"] = .string(customer.sandbox ? "Sandbox" : "Production")
    }
    return .object(object)
  }

  /// A country as the App Store's storefronts spell it: an alpha-2 code becomes its alpha-3.
  static func storefront(_ country: String) -> String {
    country.count == 2 ? CountryCodes.alpha3(country) ?? country : country
  }

  static func json(_ text: String) -> JSONValue? {
    guard !text.isEmpty else { return nil }
    if let value = try? WireCoding.decoder.decode(JSONValue.self, from: Data(text.utf8)) { return value }
    // Older RevenueCat exports escaped the quotes inside the field with backslashes.
    return try? WireCoding.decoder.decode(
      JSONValue.self, from: Data(text.replacingOccurrences(of: "\\\"", with: "\"").utf8))
  }

  /// RevenueCat's `2023-01-01 08:27:06` (UTC).
  static func revenueCatDate(_ text: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
    return formatter.date(from: text)
  }

  /// Adapty's webhook form `2020-07-10T15:00:00.000000+0000`.
  static func adaptyDate(_ text: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSSSSZ"
    return formatter.date(from: text)
  }
}
