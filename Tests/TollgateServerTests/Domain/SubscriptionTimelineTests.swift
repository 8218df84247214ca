import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// One subscription's history as daily changes, checked against figures worked out by hand.
@Suite("Subscription timeline")
struct SubscriptionTimelineTests {
  typealias F = StoreKitFixtures

  /// Day number of fixture day `n`.
  static func day(_ n: Double) -> Int64 { StatsDay.of(milliseconds: F.milliseconds(n)) }

  static func changes(_ transactions: [TransactionPayload], failures: [(day: Int64, grace: Bool)] = [])
    -> [Int64: SubscriptionCounters]
  {
    // One product and currency here: by day.
    Dictionary(
      SubscriptionTimeline.changes(transactions, failures: failures).map { ($0.key.day, $0.value) },
      uniquingKeysWith: +)
  }

  @Test("a week's free trial, a paid month, one renewal, then churn")
  func trialThenChurn() {
    let changes = Self.changes([
      F.transaction(
        "1000", purchased: 0, expires: 7, offerType: 1, discount: "FREE_TRIAL", price: 0),
      F.transaction("1001", purchased: 7, expires: 37, reason: "RENEWAL"),
      F.transaction("1002", purchased: 37, expires: 67, reason: "RENEWAL"),
    ])
    var start = SubscriptionCounters()
    start.newTrials = 1
    start.trials = 1
    var converted = SubscriptionCounters()
    converted.trials = -1
    converted.newPaid = 1
    converted.trialConversions = 1
    converted.gross = 9_990
    converted.mrr = 9_990
    converted.active = 1
    var renewed = SubscriptionCounters()
    renewed.renewals = 1
    renewed.gross = 9_990
    var churned = SubscriptionCounters()
    churned.mrr = -9_990
    churned.active = -1
    churned.expirations = 1
    #expect(changes == [Self.day(0): start, Self.day(7): converted, Self.day(37): renewed, Self.day(67): churned])
  }

  @Test("a yearly subscription refunded after ten days: a refund, no churn; MRR is the price / 12")
  func refund() {
    let changes = Self.changes([
      F.transaction("1000", product: "pro_annual", purchased: 0, expires: 365, revoked: 10, price: 59_990)
    ])
    var bought = SubscriptionCounters()
    bought.newPaid = 1
    bought.gross = 59_990
    bought.mrr = 4_999
    bought.active = 1
    var refunded = SubscriptionCounters()
    refunded.refunds = 1
    refunded.refunded = 59_990
    refunded.mrr = -4_999
    refunded.active = -1
    #expect(changes == [Self.day(0): bought, Self.day(10): refunded])
  }

  @Test("the second paid year is after the first paid year; a renewal late by a day is no churn")
  func secondYear() {
    let changes = Self.changes([
      F.transaction("1000", product: "pro_annual", purchased: 0, expires: 365, price: 59_990),
      F.transaction("1001", product: "pro_annual", purchased: 365.5, expires: 730, price: 59_990),
    ])
    #expect(changes[Self.day(365.5)]?.grossAfterFirstYear == 59_990)
    #expect(changes[Self.day(365.5)]?.renewals == 1)
    #expect(changes.values.reduce(0) { $0 + $1.expirations } == 1, "only the end of the second year")
    #expect(changes.values.reduce(0) { $0 + $1.active } == 0)
    #expect(changes[Self.day(730)]?.expirations == 1)
  }

  @Test("failed renewals count as billing retry or grace period on the day Apple said so")
  func failures() {
    let changes = Self.changes(
      [F.transaction("1000", purchased: 0, expires: 30)],
      failures: [(day: Self.day(30), grace: true), (day: Self.day(31), grace: false)])
    #expect(changes[Self.day(30)]?.gracePeriods == 1)
    #expect(changes[Self.day(31)]?.billingRetries == 1)
  }

  @Test(
    "monthly normalization by period length",
    arguments: [
      (7.0, 9_990 * 52 / 12), (30, 9_990), (31, 9_990), (61, 4_995), (91, 3_330), (182, 1_665), (365, 832),
    ] as [(Double, Int64)])
  func monthly(days: Double, expected: Int64) {
    #expect(SubscriptionTimeline.monthlyPrice(9_990, milliseconds: Int64(days * 86_400_000)) == expected)
  }

  /// Counters with the named values, the rest 0.
  static func counters(
    active: Int64 = 0, newPaid: Int64 = 0, renewals: Int64 = 0, expirations: Int64 = 0, gross: Int64 = 0,
    grossAfterFirstYear: Int64 = 0, mrr: Int64 = 0
  ) -> SubscriptionCounters {
    var counters = SubscriptionCounters()
    counters.active = active
    counters.newPaid = newPaid
    counters.renewals = renewals
    counters.expirations = expirations
    counters.gross = gross
    counters.grossAfterFirstYear = grossAfterFirstYear
    counters.mrr = mrr
    return counters
  }

  /// The changes of fixture day `day` for `product` (USD, Sandbox).
  static func lookup(_ changes: [SubscriptionDay: SubscriptionCounters]) -> (Double, String) -> SubscriptionCounters? {
    { day, product in
      changes[SubscriptionDay(day: Self.day(day), product: product, currency: "USD", environment: "Sandbox")]
    }
  }

  /// A monthly subscription bought on day 0, upgraded on day 10 to the yearly one.
  static func upgradeHistory(flagged: Bool, revokedWithoutReason: Bool = false) -> [TransactionPayload] {
    var monthly = F.transaction(
      "1000", purchased: 0, expires: 30, signed: flagged ? 10 : 0, revoked: revokedWithoutReason ? 10 : nil,
      upgraded: flagged ? true : nil)
    if revokedWithoutReason { monthly.revocationReason = nil }
    return [
      monthly,
      F.transaction("1001", product: "pro_annual", purchased: 10, expires: 375, reason: "PURCHASE", price: 59_990),
    ]
  }

  @Test(
    "an upgrade ends the old period at the upgrade: MRR, actives and churn count the subscription once",
    arguments: [(true, false), (true, true), (false, false)])
  func upgrade(flagged: Bool, revokedWithoutReason: Bool) {
    let changes = SubscriptionTimeline.changes(
      Self.upgradeHistory(flagged: flagged, revokedWithoutReason: revokedWithoutReason))
    let at = Self.lookup(changes)
    let bought = Self.counters(active: 1, newPaid: 1, gross: 9_990, mrr: 9_990)
    let ended = Self.counters(mrr: -9_990)
    let upgraded = Self.counters(renewals: 1, gross: 59_990, mrr: 4_999)
    let churned = Self.counters(active: -1, expirations: 1, mrr: -4_999)
    #expect(at(0, "pro_monthly") == bought)
    #expect(at(10, "pro_monthly") == ended, "the monthly period leaves MRR on the upgrade's day, not on day 30")
    #expect(at(10, "pro_annual") == upgraded)
    #expect(at(375, "pro_annual") == churned)
    #expect(changes.count == 4, "no refund, no expiry and no second active for the upgraded month")
  }

  @Test("a downgrade (and a crossgrade to another length) starts at the renewal: one period after the other")
  func downgrade() {
    let changes = SubscriptionTimeline.changes([
      F.transaction("1000", product: "pro_annual", purchased: 0, expires: 365, price: 59_990),
      F.transaction("1001", purchased: 365, expires: 395),
    ])
    let at = Self.lookup(changes)
    let bought = Self.counters(active: 1, newPaid: 1, gross: 59_990, mrr: 4_999)
    let ended = Self.counters(mrr: -4_999)
    let renewed = Self.counters(renewals: 1, gross: 9_990, grossAfterFirstYear: 9_990, mrr: 9_990)
    let churned = Self.counters(active: -1, expirations: 1, mrr: -9_990)
    #expect(at(0, "pro_annual") == bought)
    #expect(at(365, "pro_annual") == ended)
    #expect(at(365, "pro_monthly") == renewed)
    #expect(at(395, "pro_monthly") == churned)
    #expect(changes.count == 4)
  }

  @Test("a crossgrade of the same length takes effect at once, like an upgrade")
  func crossgrade() {
    let changes = Self.changes([
      F.transaction("1000", purchased: 0, expires: 30, signed: 12, upgraded: true),
      F.transaction("1001", product: "plus_monthly", purchased: 12, expires: 42, reason: "PURCHASE", price: 8_990),
    ])
    #expect(changes[Self.day(12)]?.mrr == -9_990 + 8_990)
    #expect(changes[Self.day(30)] == nil, "the first month left MRR at the crossgrade")
    #expect(changes.values.reduce(0) { $0 + $1.active } == 0)
    #expect(changes.values.reduce(0) { $0 + $1.expirations } == 1, "only the end of the second month")
    #expect(changes.values.reduce(0) { $0 + $1.refunds } == 0)
  }

  @Test("in the report, an upgraded subscription counts once in MRR as it does in active subscriptions")
  func upgradeInReport() {
    // Two yearly subscribers; one of them upgraded from a 9.98 monthly subscription on day 10.
    let upgraded = [
      F.transaction("1000", purchased: 0, expires: 30, signed: 10, upgraded: true, price: 9_980),
      F.transaction("1001", product: "pro_annual", purchased: 10, expires: 375, reason: "PURCHASE", price: 1_000),
      F.transaction(
        "2000", original: "2000", product: "pro_annual", purchased: 10, expires: 375, price: 12_340_280),
    ]
    var totals: [SubscriptionDayTotals] = []
    for (key, counters) in SubscriptionTimeline.changes(Array(upgraded[0...1]))
      .merging(SubscriptionTimeline.changes([upgraded[2]]), uniquingKeysWith: +)
    {
      totals.append(
        SubscriptionDayTotals(day: key.day, currency: key.currency, counters: counters))
    }
    let report = SubscriptionReport.build(
      days: Self.day(15)...Self.day(15), by: .day, environment: "Sandbox", totals: totals, reporting: nil)
    #expect(report.periods.first?.activeSubscriptions == 2)
    #expect(report.periods.first?.mrr == Money(thousandths: 12_340_280 / 12 + 1_000 / 12, currency: "USD"))
  }

  @Test("non-subscriptions contribute nothing")
  func nonSubscription() {
    #expect(
      Self.changes([
        F.transaction("1000", product: "pro_lifetime", purchased: 0, type: TransactionPayload.nonConsumable)
      ])
      .isEmpty)
  }
}
