import Foundation
import TollgateAPI
import TollgateSupport

/// A profile as stored.
public struct ProfileRecord: Sendable, Hashable {
  /// Lower-cased UUID.
  public var id: String
  /// Grows by one on every change.
  public var version: Int64
  /// The app's own user id.
  public var customerUserId: String?
  /// Install meta.
  public var install: InstallMeta
  /// Custom attributes.
  public var customAttributes: [String: JSONValue]
  /// Applied attribution sources, sorted.
  public var appliedSources: [String]
  /// Creation time.
  public var createdAt: Date
  /// Last change.
  public var updatedAt: Date
  /// Attribution payloads and the status of each source.
  public var attribution: ProfileAttribution = ProfileAttribution()
  /// What the profile owns, derived from its App Store facts.
  public var purchases: ProfilePurchases = ProfilePurchases()

  /// Creates a record.
  public init(
    id: String, version: Int64 = 1, customerUserId: String? = nil, install: InstallMeta = .init(),
    customAttributes: [String: JSONValue] = [:], appliedSources: [String] = [],
    createdAt: Date, updatedAt: Date
  ) {
    self.id = id
    self.version = version
    self.customerUserId = customerUserId
    self.install = install
    self.customAttributes = customAttributes
    self.appliedSources = appliedSources
    self.createdAt = createdAt
    self.updatedAt = updatedAt
  }
}

/// What attribution knows about a profile.
public struct ProfileAttribution: Codable, Sendable, Hashable {
  /// Apple's answer, once resolved with `attribution: true`.
  public var appleAds: AppleAdsRecord?
  /// Status per source (`apple_ads` → …).
  public var status: [String: AttributionStatus] = [:]

  /// Nothing known yet.
  public init() {}

  enum CodingKeys: String, CodingKey {
    case status
    case appleAds = "apple_ads"
  }
}

/// Apple's payload as applied to a profile.
public struct AppleAdsRecord: Codable, Sendable, Hashable {
  /// What Apple answered.
  public var payload: AppleAdsPayload
  /// Developer-mode (fake ids) attribution.
  public var test: Bool
  /// `clickDate` parsed.
  public var clickDate: Date?
  /// When the server received it.
  public var resolvedAt: Date

  /// Creates a record.
  public init(payload: AppleAdsPayload, test: Bool, clickDate: Date?, resolvedAt: Date) {
    self.payload = payload
    self.test = test
    self.clickDate = clickDate
    self.resolvedAt = resolvedAt
  }
}

/// The source name of Apple Ads attribution, on the wire and in rules.
public let appleAdsSource = "apple_ads"
