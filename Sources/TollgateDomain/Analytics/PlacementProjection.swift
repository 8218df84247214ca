import Foundation
import TollgateSupport

/// The placement report's rows a fact changes — one definition that the live rollup applies as
/// facts arrive (the difference between a fact's new and old rows) and the rebuild sums over
/// every stored fact, so the two agree by construction. Adding a figure is its line here and
/// its column.
package enum PlacementProjection {
  /// The paywall a row counts for.
  package struct Variation: Hashable, Sendable {
    package var placement: String
    package var audience: String
    package var variation: String

    package init(placement: String, audience: String, variation: String) {
      self.placement = placement
      self.audience = audience
      self.variation = variation
    }
  }

  /// A row of `stats_daily`: a variation's day.
  package struct Day: Hashable, Sendable {
    package var variation: Variation
    package var day: Int64
  }

  /// A row of `stats_revenue`: a variation's day in one currency.
  package struct MoneyDay: Hashable, Sendable {
    package var variation: Variation
    package var day: Int64
    package var currency: String
  }

  /// Counter changes by row: `stats_daily`'s columns by name, `stats_revenue`'s figures.
  package struct Changes: Equatable, Sendable {
    package var daily: [Day: [String: Int64]] = [:]
    package var money: [MoneyDay: MoneyFigures] = [:]
    /// `stats_payer_revenue`: the revenue model's sufficient statistics of paying viewers.
    package var payers: [MoneyDay: PayerMoments] = [:]

    package init() {}

    package mutating func count(_ column: String, _ variation: Variation, day: Int64, by amount: Int64 = 1) {
      daily[Day(variation: variation, day: day), default: [:]][column, default: 0] += amount
    }

    /// Adds another set of changes to these (a unit of work gathers its rows, then writes once).
    package mutating func merge(_ other: Changes) {
      for (day, counters) in other.daily {
        for (column, amount) in counters { daily[day, default: [:]][column, default: 0] += amount }
      }
      for (key, figures) in other.money { add(figures, key.variation, day: key.day, currency: key.currency) }
      for (key, moments) in other.payers { payers[key] = (payers[key] ?? PayerMoments()) + moments }
    }

    /// Whether nothing changes.
    package var isEmpty: Bool { daily.isEmpty && money.isEmpty && payers.isEmpty }

    package mutating func add(_ figures: MoneyFigures, _ variation: Variation, day: Int64, currency: String) {
      let key = MoneyDay(variation: variation, day: day, currency: currency)
      var sum = money[key] ?? MoneyFigures()
      sum.gross += figures.gross
      sum.refunded += figures.refunded
      sum.transactions += figures.transactions
      money[key] = sum
    }
  }

  /// A flow shown: an impression on its day.
  package static func impression(_ variation: Variation, day: Int64, into changes: inout Changes, sign: Int64 = 1) {
    changes.count("impressions", variation, day: day, by: sign)
  }

  /// A profile's first day with a variation (`viewers`: its first view; `purchasers`: its first
  /// purchase credited to it): one on that day.
  package static func first(
    _ column: String, _ variation: Variation, day: Int64, into changes: inout Changes, sign: Int64 = 1
  ) {
    changes.count(column, variation, day: day, by: sign)
  }

  /// A transaction's own rows, credited to `variation`: its sale (gross, one transaction) on its
  /// purchase day, and when refunded, a refund and the refunded price on the refund's day.
  package static func transaction(
    _ payload: TransactionPayload, _ variation: Variation, into changes: inout Changes, sign: Int64 = 1
  ) {
    let price = payload.price ?? 0
    changes.add(
      MoneyFigures(gross: price * sign, transactions: sign), variation, day: payload.purchaseDay,
      currency: payload.currencyCode)
    if let day = payload.revocationDay {
      changes.count("refunds", variation, day: day, by: sign)
      changes.add(MoneyFigures(refunded: price * sign), variation, day: day, currency: payload.currencyCode)
    }
  }

  /// A paying viewer of a variation: what they paid to date (`net`, in `currency`), counted on
  /// the day of their first payment.
  package static func payer(
    _ variation: Variation, day: Int64, currency: String, net: Int64, into changes: inout Changes, sign: Int64 = 1
  ) {
    let key = MoneyDay(variation: variation, day: day, currency: currency)
    let known = changes.payers[key] ?? PayerMoments()
    changes.payers[key] = sign > 0 ? known + .payer(net: net) : known - .payer(net: net)
  }

  /// A subscription's trial, credited to its first transaction's paywall: a trial on the day it
  /// started, a conversion on the day it converted.
  package static func trial(_ facts: TrialFacts, _ variation: Variation, into changes: inout Changes, sign: Int64 = 1) {
    if let day = facts.trialDay { changes.count("trials", variation, day: day, by: sign) }
    if let day = facts.convertedDay { changes.count("trial_conversions", variation, day: day, by: sign) }
  }
}
