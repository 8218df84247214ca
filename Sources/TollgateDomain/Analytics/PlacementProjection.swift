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

  /// A profile's first day with a variation, and the paywall it counted for then: what
  /// `stats_viewers`, `stats_purchasers` and (with what was paid) `stats_payers` keep.
  package struct First: Equatable, Sendable {
    package var variation: Variation
    package var day: Int64

    package init(variation: Variation, day: Int64) {
      self.variation = variation
      self.day = day
    }
  }

  /// A fact of `fact.day` for a profile whose first day was `known`: the first day to keep
  /// now, its counter moved from the known day to it; nil when the known day stays (a later
  /// or same-day fact). The live path passes the stored row, the rebuild what it has folded
  /// so far, so both keep the earliest whatever the order.
  package static func first(
    _ column: String, _ fact: First, known: First?, into changes: inout Changes
  ) -> First? {
    if let known {
      guard fact.day < known.day else { return nil }
      first(column, known.variation, day: known.day, into: &changes, sign: -1)
    }
    first(column, fact.variation, day: fact.day, into: &changes)
    return fact
  }

  /// A paying viewer as `stats_payers` keeps them: their first paid day and what they paid
  /// to date, net of refunds.
  package struct Payer: Equatable, Sendable {
    package var first: First
    package var net: Int64

    package init(first: First, net: Int64) {
      self.first = first
      self.net = net
    }
  }

  /// What a transaction adds to its payer's net: its price while it is paid and stands.
  package static func paid(_ payload: TransactionPayload) -> Int64 {
    payload.isPaid && payload.revocationDay == nil ? payload.price ?? 0 : 0
  }

  /// A paid transaction arriving (`old`: the version it replaces, nil when new) for a payer
  /// `known` so far: the payer now, their old revenue moments taken out and the new put in;
  /// nil when nothing changes. The net moves by the difference of the two versions' `paid`,
  /// so a refund made, taken back or repriced counts once in either order.
  package static func payer(
    _ known: Payer?, old: TransactionPayload?, new: TransactionPayload, _ variation: Variation,
    into changes: inout Changes
  ) -> Payer? {
    let change = paid(new) - (old.map(paid) ?? 0)
    let day = min(known?.first.day ?? new.purchaseDay, new.purchaseDay)
    let after = Payer(
      first: First(variation: known?.first.variation ?? variation, day: day), net: (known?.net ?? 0) + change)
    guard after != known else { return nil }
    if let known {
      payer(
        known.first.variation, day: known.first.day, currency: new.currencyCode, net: known.net, into: &changes,
        sign: -1)
    }
    payer(after.first.variation, day: after.first.day, currency: new.currencyCode, net: after.net, into: &changes)
    return after
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
