import Foundation
import TollgateSupport

/// The Apple Ads report's rows a fact changes — applied by the live rollup as facts arrive and
/// summed by the rebuild over every stored fact: one definition for both.
package enum AppleAdsProjection {
  /// A row: the install day and the campaign, ad group and keyword (0 when absent).
  package struct Group: Hashable, Sendable {
    package var day: Int64
    package var campaign: Int64
    package var adGroup: Int64
    package var keyword: Int64

    package init(day: Int64, campaign: Int64, adGroup: Int64, keyword: Int64) {
      self.day = day
      self.campaign = campaign
      self.adGroup = adGroup
      self.keyword = keyword
    }
  }

  /// `stats_apple_ads`'s counters of a row.
  package struct Counts: Hashable, Sendable {
    package var installs: Int64 = 0
    package var flowInTime: Int64 = 0
    package var purchasers: Int64 = 0
  }

  /// A row in one currency (`stats_apple_ads_revenue`).
  package struct Money: Hashable, Sendable {
    package var group: Group
    package var currency: String
  }

  /// Counter changes by row.
  package struct Changes: Equatable, Sendable {
    package var counts: [Group: Counts] = [:]
    package var gross: [Money: Int64] = [:]

    package init() {}

    /// Adds another set of changes to these.
    package mutating func merge(_ other: Changes) {
      for (group, more) in other.counts {
        var known = counts[group] ?? Counts()
        known.installs += more.installs
        known.flowInTime += more.flowInTime
        known.purchasers += more.purchasers
        counts[group] = known
      }
      for (money, amount) in other.gross { gross[money, default: 0] += amount }
    }
  }

  /// A profile Apple Ads attribution was applied to: an install of its group, whether the
  /// Apple Ads-targeted flow reached its first launch in time, whether it had bought already.
  package static func install(_ group: Group, flowInTime: Bool, purchaser: Bool, into changes: inout Changes) {
    var counts = changes.counts[group] ?? Counts()
    counts.installs += 1
    if flowInTime { counts.flowInTime += 1 }
    if purchaser { counts.purchasers += 1 }
    changes.counts[group] = counts
  }

  /// An attributed profile whose Apple Ads-targeted flow reached its first launch in time, as
  /// reported after its install was known.
  package static func flowInTime(_ group: Group, into changes: inout Changes) {
    changes.counts[group, default: Counts()].flowInTime += 1
  }

  /// An attributed profile's first purchase (a trial start counts) after its install was known.
  package static func firstPurchase(_ group: Group, into changes: inout Changes) {
    changes.counts[group, default: Counts()].purchasers += 1
  }

  /// A transaction of an attributed profile: its price in the group's gross revenue.
  package static func sale(_ group: Group, _ transaction: TransactionPayload, into changes: inout Changes) {
    changes.gross[Money(group: group, currency: transaction.currencyCode), default: 0] += transaction.price ?? 0
  }
}
