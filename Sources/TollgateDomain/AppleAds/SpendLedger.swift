import Foundation
import TollgateSupport

/// Apple's figures summed per report row and install day: `by=campaign` reads campaign rows,
/// `by=ad_group` ad-group rows, `by=keyword` keyword rows plus, per ad group, what its spend has
/// beyond its keywords' (search match) under keyword 0 — Tollgate's key for installs without a
/// keyword. A level a file did not carry is summed from the level below it.
public struct SpendLedger: Sendable {
  /// One report row's identity: (campaign, ad group or nil, keyword or nil).
  public struct Key: Hashable, Sendable, Comparable {
    public var campaignId: Int64
    public var adGroupId: Int64?
    public var keywordId: Int64?

    /// A row: a campaign, an ad group of it, or a keyword of that.
    public init(campaignId: Int64, adGroupId: Int64? = nil, keywordId: Int64? = nil) {
      self.campaignId = campaignId
      self.adGroupId = adGroupId
      self.keywordId = keywordId
    }

    public static func < (left: Key, right: Key) -> Bool {
      (left.campaignId, left.adGroupId ?? -1, left.keywordId ?? -1)
        < (right.campaignId, right.adGroupId ?? -1, right.keywordId ?? -1)
    }
  }

  /// Apple's figures of one row on one day.
  public struct Totals: Sendable, Hashable {
    /// Thousandths, by currency.
    public var spend: [String: Int64] = [:]
    public var impressions: Int64 = 0
    public var taps: Int64 = 0
    public var tapInstalls: Int64 = 0
    public var totalInstalls: Int64 = 0

    mutating func add(_ figure: SpendFigure, sign: Int64 = 1) {
      if !figure.currency.isEmpty { spend[figure.currency, default: 0] += sign * figure.spend }
      impressions += sign * figure.impressions
      taps += sign * figure.taps
      tapInstalls += sign * figure.tapInstalls
      totalInstalls += sign * figure.totalInstalls
    }

    mutating func subtract(_ other: Totals) {
      for (currency, amount) in other.spend { spend[currency, default: 0] -= amount }
      impressions -= other.impressions
      taps -= other.taps
      tapInstalls -= other.tapInstalls
      totalInstalls -= other.totalInstalls
    }

    mutating func add(_ other: Totals) {
      for (currency, amount) in other.spend { spend[currency, default: 0] += amount }
      impressions += other.impressions
      taps += other.taps
      tapInstalls += other.tapInstalls
      totalInstalls += other.totalInstalls
    }
  }

  /// Row → day → figures.
  public private(set) var days: [Key: [Int64: Totals]] = [:]

  /// The ledger of `figures` for rows `grouping` names.
  public init(_ figures: [SpendFigure], by grouping: AppleAdsGrouping) {
    let byLevel = Dictionary(grouping: figures, by: \.level)
    let campaigns = byLevel[.campaign] ?? []
    let groups = byLevel[.adGroup] ?? []
    let keywords = byLevel[.keyword] ?? []
    // (day, campaign) and (day, campaign, ad group) present at each level.
    let campaignDays = Set(campaigns.map { [$0.day, $0.campaignId] })
    let groupDays = Set(groups.map { [$0.day, $0.campaignId, $0.adGroupId] })
    func add(_ figure: SpendFigure, _ key: Key, sign: Int64 = 1) {
      days[key, default: [:]][figure.day, default: Totals()].add(figure, sign: sign)
    }
    switch grouping {
    case .campaign:
      for figure in campaigns { add(figure, Key(campaignId: figure.campaignId)) }
      for figure in groups where !campaignDays.contains([figure.day, figure.campaignId]) {
        add(figure, Key(campaignId: figure.campaignId))
      }
      for figure in keywords
      where !campaignDays.contains([figure.day, figure.campaignId])
        && !groupDays.contains([figure.day, figure.campaignId, figure.adGroupId])
      {
        add(figure, Key(campaignId: figure.campaignId))
      }
    case .adGroup:
      for figure in groups { add(figure, Key(campaignId: figure.campaignId, adGroupId: figure.adGroupId)) }
      for figure in keywords where !groupDays.contains([figure.day, figure.campaignId, figure.adGroupId]) {
        add(figure, Key(campaignId: figure.campaignId, adGroupId: figure.adGroupId))
      }
    case .keyword:
      for figure in keywords {
        add(figure, Key(campaignId: figure.campaignId, adGroupId: figure.adGroupId, keywordId: figure.keywordId))
      }
      // What an ad group reports beyond its keywords went to search match.
      var keywordSums: [[Int64]: Totals] = [:]
      for figure in keywords {
        keywordSums[[figure.day, figure.campaignId, figure.adGroupId], default: Totals()].add(figure)
      }
      for figure in groups {
        var rest = Totals()
        rest.add(figure)
        if let sum = keywordSums[[figure.day, figure.campaignId, figure.adGroupId]] { rest.subtract(sum) }
        guard rest.spend.values.contains(where: { $0 > 0 }) || rest.tapInstalls > 0 || rest.taps > 0 else { continue }
        let key = Key(campaignId: figure.campaignId, adGroupId: figure.adGroupId, keywordId: 0)
        days[key, default: [:]][figure.day, default: Totals()].add(rest)
      }
    }
  }

  /// A row's figures over every day, or over the days `include` accepts.
  public func totals(_ key: Key, include: (Int64) -> Bool = { _ in true }) -> Totals {
    var sum = Totals()
    for (day, totals) in days[key] ?? [:] where include(day) { sum.add(totals) }
    return sum
  }
}
