import Foundation
import Testing
import TollgateAPI

@testable import TollgateServer

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

  @Test("non-subscriptions contribute nothing")
  func nonSubscription() {
    #expect(
      Self.changes([
        F.transaction("1000", product: "pro_lifetime", purchased: 0, type: TransactionPayload.nonConsumable)
      ])
      .isEmpty)
  }
}
