import Foundation
import TollgateSupport

/// One period (day, ISO week from Monday, or calendar month, clipped to the range) of the
/// subscription report. Stocks (`active_*`, `mrr`, `arr`) are at the end of the period's last
/// day; the rest are what happened in it. Money is in `SubscriptionReport.currency`.
public struct SubscriptionPeriod: Codable, Sendable, Hashable {
  public var start: String
  public var end: String
  /// Paid subscriptions active at the end of the period (trials not counted).
  public var activeSubscriptions: Int64
  public var activeTrials: Int64
  public var newTrials: Int64
  public var trialConversions: Int64
  public var newPaidSubscriptions: Int64
  public var renewals: Int64
  /// Paid periods that ended by expiry without a renewal (refunds are counted apart).
  public var expirations: Int64
  /// Expirations / paid subscriptions active when the period began (nil when none were).
  public var churnRate: Double?
  public var billingRetries: Int64
  public var gracePeriods: Int64
  public var refunds: Int64
  /// Money is absent without a report currency, or when an amount it would sum has no rate.
  public var gross: Money?
  public var refunded: Money?
  /// Gross − refunded.
  public var net: Money?
  /// Net after the App Store's commission (taxes not deducted).
  public var proceeds: Money?
  /// Monthly recurring revenue of the active paid subscriptions.
  public var mrr: Money?
  /// 12 × MRR.
  public var arr: Money?

  enum CodingKeys: String, CodingKey {
    case start, end, renewals, expirations, refunds, gross, refunded, net, proceeds, mrr, arr
    case activeSubscriptions = "active_subscriptions"
    case activeTrials = "active_trials"
    case newTrials = "new_trials"
    case trialConversions = "trial_conversions"
    case newPaidSubscriptions = "new_paid_subscriptions"
    case churnRate = "churn_rate"
    case billingRetries = "billing_retries"
    case gracePeriods = "grace_periods"
  }
}

/// `GET /v1/admin/stats/subscriptions` and `tollgate report subscriptions`.
public struct SubscriptionReport: Codable, Sendable, Hashable {
  public var from: String
  public var to: String
  /// `day`, `week` or `month`.
  public var by: String
  public var environment: String
  /// The currency of every amount (nil when payers paid in several and none is configured).
  public var currency: String?
  /// Currencies without a rate: money figures that would sum their amounts are absent (their
  /// counts are in).
  public var unconverted: [String]
  public var periods: [SubscriptionPeriod]

  /// The grouping of days into periods.
  public enum Grouping: String, Sendable, CaseIterable {
    case day, week, month
  }

  /// The grouping and filters a request names (`by`, `environment`, `product_id`, `storefront`,
  /// `campaign_id`, `ad_group_id`, `keyword_id`, `placement_id`, `audience_id`, `variation_id`);
  /// `bad_parameter` for a value outside its set, an empty text or a negative or non-numeric id.
  public static func request(_ parameters: [String: String]) throws(DomainError) -> (Grouping, SubscriptionFilters) {
    guard let grouping = Grouping(rawValue: parameters["by"] ?? "day") else {
      throw DomainError(.badParameter, "by is day, week or month.")
    }
    var filters = SubscriptionFilters()
    switch parameters["environment"] ?? "production" {
    case "production": filters.environment = "Production"
    case "sandbox": filters.environment = "Sandbox"
    default: throw DomainError(.badParameter, "environment is production or sandbox.")
    }
    func text(_ name: String) throws(DomainError) -> String? {
      guard let value = parameters[name] else { return nil }
      guard !value.isEmpty else { throw DomainError(.badParameter, "\(name) must not be empty.") }
      return value
    }
    func number(_ name: String) throws(DomainError) -> Int64? {
      guard let value = parameters[name] else { return nil }
      guard let number = Int64(value), number >= 0 else {
        throw DomainError(.badParameter, "\(name) is a number (0: organic).")
      }
      return number
    }
    filters.productId = try text("product_id")
    filters.storefront = try text("storefront")
    filters.placementId = try text("placement_id")
    filters.audienceId = try text("audience_id")
    filters.variationId = try text("variation_id")
    filters.campaignId = try number("campaign_id")
    filters.adGroupId = try number("ad_group_id")
    filters.keywordId = try number("keyword_id")
    if let origin = try text("origin") {
      guard ["import", "live"].contains(origin) else {
        throw DomainError(.badParameter, "origin is import (customers a profile import brought) or live.")
      }
      filters.origin = origin
    }
    return (grouping, filters)
  }

  /// Builds the report from the days' totals (every day through `days.upperBound`).
  public static func build(
    days: ClosedRange<Int64>, by grouping: Grouping, environment: String, totals: [SubscriptionDayTotals],
    reporting: ReportingSettings?
  ) -> SubscriptionReport {
    let currencies = Set(totals.map(\.currency))
    let currency = reporting?.currency ?? (currencies.count == 1 ? currencies.first : nil)
    let converter = CurrencyConverter(currency: currency, reporting: reporting)
    let unconverted = currencies.filter { converter.rate($0) == nil }.sorted()
    /// A day's money in the report's currency: gross, refunded, both after the first paid year,
    /// MRR's change; `unpriced` when a flow had an amount without a rate, `unpricedMRR` the MRR
    /// changes of currencies without one (a stock: absent while any is nonzero).
    struct DayMoney {
      var counts = SubscriptionCounters()
      var money = [Decimal](repeating: 0, count: 5)
      var unpriced = false
      var unpricedMRR: [String: Int64] = [:]
    }
    var byDay: [Int64: DayMoney] = [:]
    for total in totals {
      var entry = byDay[total.day] ?? DayMoney()
      entry.counts = entry.counts + total.counters
      let c = total.counters
      let amounts = [c.gross, c.refunded, c.grossAfterFirstYear, c.refundedAfterFirstYear, c.mrr]
      if converter.rate(total.currency) != nil {
        for index in 0..<5 { entry.money[index] += converter.units(amounts[index], total.currency) ?? 0 }
      } else {
        entry.unpriced = entry.unpriced || amounts[0..<4].contains { $0 != 0 }
        entry.unpricedMRR[total.currency, default: 0] += c.mrr
      }
      byDay[total.day] = entry
    }
    let firstRate: Decimal = reporting?.smallBusiness == true ? 0.15 : 0.30
    // Stocks before the range.
    var active: Int64 = 0
    var trials: Int64 = 0
    var mrr: Decimal = 0
    var unpricedMRR: [String: Int64] = [:]
    for (day, entry) in byDay where day < days.lowerBound {
      active += entry.counts.active
      trials += entry.counts.trials
      mrr += entry.money[4]
      unpricedMRR.merge(entry.unpricedMRR, uniquingKeysWith: +)
    }
    var periods: [SubscriptionPeriod] = []
    var day = days.lowerBound
    while day <= days.upperBound {
      let end = min(periodEnd(day, grouping), days.upperBound)
      let activeAtStart = active
      var flows = SubscriptionCounters()
      var money = [Decimal](repeating: 0, count: 5)
      var unpriced = false
      for current in day...end {
        guard let entry = byDay[current] else { continue }
        flows = flows + entry.counts
        for index in 0..<5 { money[index] += entry.money[index] }
        unpriced = unpriced || entry.unpriced
        unpricedMRR.merge(entry.unpricedMRR, uniquingKeysWith: +)
      }
      active += flows.active
      trials += flows.trials
      mrr += money[4]
      let net = money[0] - money[1]
      let afterFirstYear = money[2] - money[3]
      let flowsPriced = !unpriced
      let stockPriced = unpricedMRR.values.allSatisfy { $0 == 0 }
      func shown(_ value: Decimal, _ priced: Bool) -> Money? { priced ? converter.money(value) : nil }
      periods.append(
        SubscriptionPeriod(
          start: PlacementReport.isoDay(day), end: PlacementReport.isoDay(end), activeSubscriptions: active,
          activeTrials: trials, newTrials: flows.newTrials, trialConversions: flows.trialConversions,
          newPaidSubscriptions: flows.newPaid, renewals: flows.renewals, expirations: flows.expirations,
          churnRate: activeAtStart > 0 ? Double(flows.expirations) / Double(activeAtStart) : nil,
          billingRetries: flows.billingRetries, gracePeriods: flows.gracePeriods, refunds: flows.refunds,
          gross: shown(money[0], flowsPriced), refunded: shown(money[1], flowsPriced), net: shown(net, flowsPriced),
          proceeds: shown((net - afterFirstYear) * (1 - firstRate) + afterFirstYear * 0.85, flowsPriced),
          mrr: shown(mrr, stockPriced), arr: shown(mrr * 12, stockPriced)))
      day = end + 1
    }
    return SubscriptionReport(
      from: PlacementReport.isoDay(days.lowerBound), to: PlacementReport.isoDay(days.upperBound),
      by: grouping.rawValue, environment: environment, currency: currency, unconverted: unconverted,
      periods: periods)
  }

  /// The first day of the period holding `day`.
  package static func periodStart(_ day: Int64, _ grouping: Grouping) -> Int64 {
    switch grouping {
    case .day: return day
    case .week: return day - ((day + 3) % 7 + 7) % 7
    case .month:
      let date = StatsDay.civil(day)
      return StatsDay.of(year: date.year, month: date.month, day: 1)
    }
  }

  /// The first days of the periods starting within `days`, in order.
  package static func periodStarts(_ days: ClosedRange<Int64>, _ grouping: Grouping) -> [Int64] {
    var starts: [Int64] = []
    var day = periodStart(days.lowerBound, grouping)
    if day < days.lowerBound { day = periodEnd(day, grouping) + 1 }
    while day <= days.upperBound {
      starts.append(day)
      day = periodEnd(day, grouping) + 1
    }
    return starts
  }

  /// The last day of the period holding `day` (weeks start on Monday; day 0 was a Thursday).
  static func periodEnd(_ day: Int64, _ grouping: Grouping) -> Int64 {
    switch grouping {
    case .day: return day
    case .week:
      let weekday = ((day + 3) % 7 + 7) % 7  // 0 = Monday
      return day + (6 - weekday)
    case .month:
      let date = StatsDay.civil(day)
      return date.month == 12
        ? StatsDay.of(year: date.year + 1, month: 1, day: 1) - 1
        : StatsDay.of(year: date.year, month: date.month + 1, day: 1) - 1
    }
  }
}
