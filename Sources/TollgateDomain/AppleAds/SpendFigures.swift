import Foundation
import TollgateSupport

/// The level of an Apple Ads report row.
public enum SpendLevel: String, Sendable, Hashable, CaseIterable, Codable {
  case campaign
  case adGroup = "ad_group"
  case keyword
}

/// What Apple Ads reports for one entity on one UTC day: spend in the organization's currency
/// (thousandths of a unit, as revenue is kept) and Apple's own counts.
public struct SpendFigure: Sendable, Hashable, Codable {
  public var level: SpendLevel
  public var day: Int64
  public var campaignId: Int64
  /// 0 on campaign rows.
  public var adGroupId: Int64
  /// 0 unless a keyword row.
  public var keywordId: Int64
  public var currency: String
  public var spend: Int64
  public var impressions: Int64
  public var taps: Int64
  /// Installs after a tap within Apple's 30-day window: what AdServices attribution can match.
  public var tapInstalls: Int64
  /// Tap-through and view-through installs.
  public var totalInstalls: Int64

  /// A figure.
  public init(
    level: SpendLevel, day: Int64, campaignId: Int64, adGroupId: Int64 = 0, keywordId: Int64 = 0, currency: String,
    spend: Int64, impressions: Int64 = 0, taps: Int64 = 0, tapInstalls: Int64 = 0, totalInstalls: Int64 = 0
  ) {
    self.level = level
    self.day = day
    self.campaignId = campaignId
    self.adGroupId = adGroupId
    self.keywordId = keywordId
    self.currency = currency
    self.spend = spend
    self.impressions = impressions
    self.taps = taps
    self.tapInstalls = tapInstalls
    self.totalInstalls = totalInstalls
  }
}

/// The name Apple Ads gives a campaign, an ad group or a keyword (its text), latest first: an
/// entity keeps its id when renamed, so it keeps one row.
public struct AdsEntityName: Sendable, Hashable, Codable {
  public var level: SpendLevel
  public var id: Int64
  public var name: String

  /// A name.
  public init(level: SpendLevel, id: Int64, name: String) {
    self.level = level
    self.id = id
    self.name = name
  }
}
