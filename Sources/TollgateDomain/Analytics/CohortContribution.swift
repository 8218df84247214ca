import Foundation
import TollgateSupport

/// What one installed profile adds to its install cohort at one age (days since install), in one
/// currency and store environment: the install itself (age 0, no currency), its first payment,
/// its first trial, subscriptions starting or ending, and money (milliunits).
public struct CohortCounters: Codable, Sendable, Hashable {
  public var installs: Int64 = 0
  /// The profile's first paid transaction happened at this age.
  public var payers: Int64 = 0
  /// Its first free trial started at this age.
  public var trials: Int64 = 0
  /// Paid subscriptions starting (+1) or ending (−1) at this age.
  public var active: Int64 = 0
  /// Paid minus refunded.
  public var net: Int64 = 0
  /// Of `net`: transactions after a subscriber's first paid year (15 % commission).
  public var netAfterFirstYear: Int64 = 0

  public init() {}

  public var values: [Int64] { [installs, payers, trials, active, net, netAfterFirstYear] }
  public static let columns = ["installs", "payers", "trials", "active_delta", "net", "net_after_first_year"]

  public init(values: [Int64]) {
    (installs, payers, trials, active, net, netAfterFirstYear) =
      (values[0], values[1], values[2], values[3], values[4], values[5])
  }

  // Field by field, no arrays: rollups add these once per row a profile counts in (two dozen
  // per imported profile).
  public static func + (a: Self, b: Self) -> Self {
    var sum = a
    sum += b
    return sum
  }
  public static func += (a: inout Self, b: Self) {
    a.installs += b.installs
    a.payers += b.payers
    a.trials += b.trials
    a.active += b.active
    a.net += b.net
    a.netAfterFirstYear += b.netAfterFirstYear
  }
  public static prefix func - (a: Self) -> Self {
    var negated = a
    (negated.installs, negated.payers, negated.trials) = (-a.installs, -a.payers, -a.trials)
    (negated.active, negated.net, negated.netAfterFirstYear) = (-a.active, -a.net, -a.netAfterFirstYear)
    return negated
  }
  public var isZero: Bool { self == CohortCounters() }
}

/// Where a profile's cohort change lands.
public struct CohortAge: Codable, Sendable, Hashable, Comparable {
  /// Days since install (facts before the install — a subscription restored from before — count at 0).
  public var age: Int64
  /// Empty for the install itself.
  public var currency: String
  /// Empty for the install itself.
  public var environment: String

  package init(age: Int64, currency: String, environment: String) {
    self.age = age
    self.currency = currency
    self.environment = environment
  }

  public static func < (a: Self, b: Self) -> Bool {
    (a.age, a.currency, a.environment) < (b.age, b.currency, b.environment)
  }
}

/// What an installed profile is reported by: its install day, storefront country, Apple Ads
/// campaign / ad group / keyword (0: organic), and the first paywall variation it was shown.
package struct CohortDimensions: Codable, Hashable {
  package var installDay: Int64
  package var country: String
  package var campaignId: Int64 = 0
  package var adGroupId: Int64 = 0
  package var keywordId: Int64 = 0
  package var variationId = ""
  /// When that first view was received (seconds), so later views need no recomputation.
  package var firstSeen: Double?
  /// Brought by a profile import (nil: installed live).
  package var imported: Bool?

  /// Every stored field.
  package init(
    installDay: Int64, country: String, campaignId: Int64 = 0, adGroupId: Int64 = 0, keywordId: Int64 = 0,
    firstSeen: Double? = nil
  ) {
    self.installDay = installDay
    self.country = country
    self.campaignId = campaignId
    self.adGroupId = adGroupId
    self.keywordId = keywordId
    self.firstSeen = firstSeen
  }
}

/// One profile's contribution to the cohort rollup — one definition for the live rollup and the
/// rebuild. `transactions` are every transaction credited to the profile.
public enum CohortContribution {
  public static func changes(installDay: Int64, _ transactions: [TransactionPayload]) -> [CohortAge: CohortCounters] {
    var changes: [CohortAge: CohortCounters] = [
      CohortAge(age: 0, currency: "", environment: ""): {
        var install = CohortCounters()
        install.installs = 1
        return install
      }()
    ]
    func change(_ day: Int64, _ transaction: TransactionPayload, _ apply: (inout CohortCounters) -> Void) {
      let key = CohortAge(
        age: max(0, day - installDay), currency: transaction.currencyCode, environment: transaction.environment)
      apply(&changes[key, default: CohortCounters()])
    }
    let ordered = transactions.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
    if let firstPaid = ordered.first(where: \.isPaid) { change(firstPaid.purchaseDay, firstPaid) { $0.payers += 1 } }
    if let firstTrial = ordered.first(where: \.isFreeTrial) {
      change(firstTrial.purchaseDay, firstTrial) { $0.trials += 1 }
    }
    // Money: every paid transaction, refunds on their day; after-first-year as subscriptions count it.
    for (_, subscription) in Dictionary(grouping: ordered, by: \.originalTransactionId) {
      let firstPaid = subscription.first(where: \.isPaid)
      for transaction in subscription where transaction.isPaid {
        let price = transaction.price ?? 0
        let late = firstPaid.map { transaction.purchaseDate >= $0.purchaseDate + 365 * 86_400_000 } ?? false
        change(transaction.purchaseDay, transaction) {
          $0.net += price
          if late { $0.netAfterFirstYear += price }
        }
        if let refunded = transaction.revocationDay {
          change(refunded, transaction) {
            $0.net -= price
            if late { $0.netAfterFirstYear -= price }
          }
        }
      }
      // Active paid subscriptions, as the subscription report counts them.
      for (where_, counters) in SubscriptionTimeline.changes(subscription) where counters.active != 0 {
        let key = CohortAge(
          age: max(0, where_.day - installDay), currency: where_.currency, environment: where_.environment)
        changes[key, default: CohortCounters()].active += counters.active
      }
    }
    return changes.filter { !$0.value.isZero }
  }
}
