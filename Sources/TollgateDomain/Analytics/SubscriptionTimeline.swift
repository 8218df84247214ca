import Foundation
import TollgateSupport

/// What one subscription changes on one day, for one product and currency: stocks as deltas
/// (active subscriptions, active trials, MRR — a report sums them from the first day on) and
/// flows as counts and amounts (milliunits).
public struct SubscriptionCounters: Codable, Sendable, Hashable {
  /// Paid subscriptions active: +1 when a paid period starts, −1 when it ends without a renewal.
  public var active: Int64 = 0
  /// Free trials active, likewise.
  public var trials: Int64 = 0
  public var newTrials: Int64 = 0
  /// A subscription's first paid transaction after its free trial.
  public var trialConversions: Int64 = 0
  /// A subscription's first paid transaction.
  public var newPaid: Int64 = 0
  /// Paid transactions after the first.
  public var renewals: Int64 = 0
  /// Paid periods that ended by expiry without a renewal (churn).
  public var expirations: Int64 = 0
  public var refunds: Int64 = 0
  /// Renewals that failed: Apple retries billing, with (grace) or without keeping access.
  public var billingRetries: Int64 = 0
  public var gracePeriods: Int64 = 0
  public var gross: Int64 = 0
  public var refunded: Int64 = 0
  /// Of `gross` and `refunded`: transactions after the subscriber's first paid year (the App
  /// Store's commission drops to 15 % then).
  public var grossAfterFirstYear: Int64 = 0
  public var refundedAfterFirstYear: Int64 = 0
  /// Monthly recurring revenue, as a delta (milliunits per month).
  public var mrr: Int64 = 0

  public init() {}

  /// Every counter in a fixed order (the rollup's columns, `SubscriptionCounters.columns`).
  public var values: [Int64] {
    [
      active, trials, newTrials, trialConversions, newPaid, renewals, expirations, refunds, billingRetries,
      gracePeriods, gross, refunded, grossAfterFirstYear, refundedAfterFirstYear, mrr,
    ]
  }

  /// The rollup's column for each of `values`.
  public static let columns = [
    "active_delta", "trials_delta", "new_trials", "trial_conversions", "new_paid", "renewals", "expirations",
    "refunds", "billing_retries", "grace_periods", "gross", "refunded", "gross_after_first_year",
    "refunded_after_first_year", "mrr_delta",
  ]

  public init(values: [Int64]) {
    active = values[0]
    trials = values[1]
    newTrials = values[2]
    trialConversions = values[3]
    newPaid = values[4]
    renewals = values[5]
    expirations = values[6]
    refunds = values[7]
    billingRetries = values[8]
    gracePeriods = values[9]
    gross = values[10]
    refunded = values[11]
    grossAfterFirstYear = values[12]
    refundedAfterFirstYear = values[13]
    mrr = values[14]
  }

  public static func + (a: Self, b: Self) -> Self { Self(values: zip(a.values, b.values).map { $0 + $1 }) }
  public static prefix func - (a: Self) -> Self { Self(values: a.values.map { -$0 }) }
  public var isZero: Bool { values.allSatisfy { $0 == 0 } }
}

/// Where a subscription's change lands: the day, and the transaction's product, currency and
/// environment.
public struct SubscriptionDay: Codable, Sendable, Hashable, Comparable {
  public var day: Int64
  public var product: String
  public var currency: String
  public var environment: String

  package init(day: Int64, product: String, currency: String, environment: String) {
    self.day = day
    self.product = product
    self.currency = currency
    self.environment = environment
  }

  public static func < (a: Self, b: Self) -> Bool {
    (a.day, a.product, a.currency, a.environment) < (b.day, b.product, b.currency, b.environment)
  }
}

/// One subscription's whole history turned into daily changes — one definition for the live
/// rollup (which applies the difference whenever a transaction or notification of the
/// subscription arrives) and the rebuild.
public enum SubscriptionTimeline {
  /// Renewals arriving up to this long after the previous period ended keep the subscription
  /// active without a break (Apple's billing retry can recover a renewal days later; the gap
  /// is then not counted as churn and renewal).
  static let continuity: Int64 = 86_400_000

  /// The subscription's changes by day, product, currency and environment. `failures` are the
  /// days Apple said a renewal failed (`DID_FAIL_TO_RENEW`), with whether it grants a grace period.
  public static func changes(_ transactions: [TransactionPayload], failures: [(day: Int64, grace: Bool)] = [])
    -> [SubscriptionDay: SubscriptionCounters]
  {
    let ordered = transactions.filter { $0.type == TransactionPayload.autoRenewable }
      .sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
    guard let latest = ordered.last else { return [:] }
    var changes: [SubscriptionDay: SubscriptionCounters] = [:]
    func change(_ day: Int64, _ transaction: TransactionPayload, _ apply: (inout SubscriptionCounters) -> Void) {
      let key = SubscriptionDay(
        day: day, product: transaction.productId, currency: transaction.currencyCode,
        environment: transaction.environment)
      apply(&changes[key, default: SubscriptionCounters()])
    }
    let firstPaid = ordered.first { $0.isPaid }
    let trialFirst = ordered.first?.isFreeTrial == true
    // A paid stretch: consecutive paid periods without a break longer than `continuity`.
    var stretch: (start: TransactionPayload, end: Int64, last: TransactionPayload, byExpiry: Bool)?
    func closeStretch() {
      guard let open = stretch else { return }
      change(StatsDay.of(milliseconds: open.end), open.last) {
        $0.active -= 1
        if open.byExpiry { $0.expirations += 1 }
      }
      stretch = nil
    }
    for (index, transaction) in ordered.enumerated() {
      let start = transaction.purchaseDate
      // An upgrade (or an immediate crossgrade) ends the old period when the new one starts: the
      // subscription is one, its access and MRR move to the new product at once.
      let upgradedAt = upgradeTime(of: transaction, successors: ordered[(index + 1)...])
      let upgraded = upgradedAt != nil
      let end = min(
        transaction.expiresDate ?? start, upgradedAt ?? Int64.max,
        transaction.revocationDate.flatMap { upgraded && transaction.revocationReason == nil ? nil : $0 } ?? Int64.max)
      let startDay = StatsDay.of(milliseconds: start)
      if transaction.isFreeTrial {
        change(startDay, transaction) { $0.newTrials += 1 }
        if end > start {
          change(startDay, transaction) { $0.trials += 1 }
          change(StatsDay.of(milliseconds: end), transaction) { $0.trials -= 1 }
        }
        continue
      }
      guard transaction.isPaid, let firstPaid else { continue }
      let afterFirstYear = start >= firstPaid.purchaseDate + 365 * 86_400_000
      let price = transaction.price ?? 0
      change(startDay, transaction) {
        if transaction.transactionId == firstPaid.transactionId {
          $0.newPaid += 1
          if trialFirst { $0.trialConversions += 1 }
        } else {
          $0.renewals += 1
        }
        $0.gross += price
        if afterFirstYear { $0.grossAfterFirstYear += price }
      }
      // The App Store credits the unused part of an upgraded period without a refund reason:
      // that is the upgrade, not a refund.
      if let revoked = transaction.revocationDate, !upgraded || transaction.revocationReason != nil {
        change(StatsDay.of(milliseconds: revoked), transaction) {
          $0.refunds += 1
          $0.refunded += price
          if afterFirstYear { $0.refundedAfterFirstYear += price }
        }
      }
      guard end > start else { continue }
      let monthly = monthlyPrice(price, milliseconds: (transaction.expiresDate ?? end) - start)
      change(startDay, transaction) { $0.mrr += monthly }
      change(StatsDay.of(milliseconds: end), transaction) { $0.mrr -= monthly }
      // A period ends by expiry unless a refund or an upgrade cut it short.
      let byExpiry = end >= (transaction.expiresDate ?? end)
      if let open = stretch, start <= open.end + continuity {
        if end >= open.end { stretch = (open.start, end, transaction, byExpiry) }
      } else {
        closeStretch()
        change(startDay, transaction) { $0.active += 1 }
        stretch = (transaction, end, transaction, byExpiry)
      }
    }
    closeStretch()
    for failure in failures {
      change(failure.day, latest) {
        if failure.grace { $0.gracePeriods += 1 } else { $0.billingRetries += 1 }
      }
    }
    return changes.filter { !$0.value.isZero }
  }

  /// When a period was cut short by an upgrade, nil when it was not. Apple marks the old
  /// transaction `isUpgraded`; it ended where the next period began inside it (the upgrade's
  /// transaction), else at the revocation Apple recorded, else when Apple signed it as upgraded.
  /// A period of another product starting inside this one is an upgrade even before Apple's
  /// re-signed old transaction arrives: two periods of one subscription never overlap otherwise.
  static func upgradeTime(of transaction: TransactionPayload, successors: ArraySlice<TransactionPayload>) -> Int64? {
    let start = transaction.purchaseDate
    let flagged = transaction.isUpgraded == true
    let next = successors.first {
      $0.purchaseDate > start && $0.purchaseDate < (transaction.expiresDate ?? .max)
        && (flagged || $0.productId != transaction.productId)
    }
    if let next { return next.purchaseDate }
    guard flagged else { return nil }
    return max(start, transaction.revocationDate ?? transaction.signedDate)
  }

  /// A period's price as a monthly amount: weekly × 52 / 12, monthly as is, two months / 2,
  /// quarterly / 3, half-yearly / 6, yearly / 12 — the period told from the transaction's length.
  /// (Sandbox accelerates periods to minutes: its MRR counts every period as weekly.)
  public static func monthlyPrice(_ price: Int64, milliseconds: Int64) -> Int64 {
    let days = Double(milliseconds) / 86_400_000
    switch days {
    case ..<10: return price * 52 / 12
    case ..<45: return price
    case ..<75: return price / 2
    case ..<135: return price / 3
    case ..<270: return price / 6
    default: return price / 12
    }
  }
}
