import Foundation
import TollgateSupport

/// Money in one currency, in milliunits as Apple sends prices (230000 JPY = ¥230).
public struct MoneyFigures: Codable, Sendable, Hashable {
  public var gross: Int64 = 0
  public var refunded: Int64 = 0
  public var transactions: Int64 = 0

  public init(gross: Int64 = 0, refunded: Int64 = 0, transactions: Int64 = 0) {
    self.gross = gross
    self.refunded = refunded
    self.transactions = transactions
  }
}

/// One variation's counters over a day range, as the rollups hold them.
public struct VariationCounts: Sendable, Hashable {
  public var placementId: String
  public var audienceId: String
  public var variationId: String
  public var impressions: Int64 = 0
  /// Profiles whose first view of the variation falls in the range.
  public var viewers: Int64 = 0
  /// Profiles whose first purchase credited to the variation falls in the range.
  public var purchasers: Int64 = 0
  public var trials: Int64 = 0
  public var trialConversions: Int64 = 0
  public var refunds: Int64 = 0
  /// By currency.
  public var revenue: [String: MoneyFigures] = [:]
  /// Paying viewers whose first payment falls in the range, by currency: their net revenue to
  /// date and the revenue model's sufficient statistics.
  public var payers: [String: PayerMoments] = [:]

  public init(placementId: String, audienceId: String, variationId: String) {
    self.placementId = placementId
    self.audienceId = audienceId
    self.variationId = variationId
  }
}

/// How Apple Ads rows are grouped.
public enum AppleAdsGrouping: String, Sendable, CaseIterable {
  case campaign
  case adGroup = "ad_group"
  case keyword
}

/// One Apple Ads group's counters over an install-day range.
public struct AppleAdsCounts: Sendable, Hashable {
  public var campaignId: Int64
  public var adGroupId: Int64?
  public var keywordId: Int64?
  /// Profiles with Apple Ads attribution applied, by install day.
  public var installs: Int64 = 0
  /// Of those, the ones whose first launch got the Apple Ads-targeted flow before the timeout.
  public var flowInTime: Int64 = 0
  /// Of those, the ones that bought something.
  public var purchasers: Int64 = 0
  /// Gross revenue by currency (milliunits).
  public var revenue: [String: Int64] = [:]

  public init(campaignId: Int64, adGroupId: Int64?, keywordId: Int64?) {
    self.campaignId = campaignId
    self.adGroupId = adGroupId
    self.keywordId = keywordId
  }
}

/// Which subscriptions a subscription report counts (nil: all).
public struct SubscriptionFilters: Sendable, Hashable {
  /// `Production` or `Sandbox`.
  public var environment = "Production"
  public var productId: String?
  public var storefront: String?
  public var campaignId: Int64?
  public var adGroupId: Int64?
  public var keywordId: Int64?
  public var placementId: String?
  public var audienceId: String?
  public var variationId: String?
  /// `import` (profiles a profile import brought) or `live`.
  public var origin: String?

  public init() {}
}

/// One day's subscription changes in one currency, summed over the filtered subscriptions.
public struct SubscriptionDayTotals: Sendable, Hashable {
  public var day: Int64
  public var currency: String
  public var counters: SubscriptionCounters

  /// Every stored field.
  package init(day: Int64, currency: String, counters: SubscriptionCounters) {
    self.day = day
    self.currency = currency
    self.counters = counters
  }
}

/// One cohort rollup row, summed over the environments asked for: the cohort's first install
/// day (a period's start, or the range's start when the period began before it), the segment's
/// value, a currency ("" for installs) and a reported age (changes between two reported ages
/// count at the later one).
public struct CohortTotals: Sendable, Hashable {
  public var start: Int64
  public var segment: String
  public var currency: String
  public var age: Int64
  public var counters: CohortCounters
  /// A sum of the segments past `top` (labelled `others`), never a segment that is called so.
  public var inOthers: Bool

  /// Every stored field.
  package init(
    start: Int64, segment: String, currency: String, age: Int64, counters: CohortCounters, inOthers: Bool = false
  ) {
    self.start = start
    self.segment = segment
    self.currency = currency
    self.age = age
    self.counters = counters
    self.inOthers = inOthers
  }
}
