import Foundation
import TollgateSupport

/// A UTC day number (days since 1970-01-01): the grain of every rollup.
public enum StatsDay {
  public static func of(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 86_400).rounded(.down)) }
  public static func of(milliseconds: Int64) -> Int64 {
    milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
  }
  public static func date(_ day: Int64) -> Date { Date(timeIntervalSince1970: Double(day) * 86_400) }

  /// The Gregorian calendar date of a day number, by integer arithmetic (reports turn thousands
  /// of days into dates and months; a `Calendar` call each took most of a report's time).
  static func civil(_ day: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = day + 719_468  // days since 0000-03-01: leap days fall at the end of a year
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let marchMonth = (5 * dayOfYear + 2) / 153
    let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfYear - (153 * marchMonth + 2) / 5 + 1)
  }

  /// The day number of a Gregorian calendar date (`civil`'s inverse).
  static func of(year: Int64, month: Int64, day: Int64) -> Int64 {
    let marchYear = month <= 2 ? year - 1 : year
    let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
    let yearOfEra = marchYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
  }

  /// `YYYY-MM-DD`.
  package static func isoDay(_ day: Int64) -> String { PlacementReport.isoDay(day) }

  /// The day number of a `YYYY-MM-DD` date; nil for anything else (a 31st of April too).
  package static func parseISODay(_ text: String) -> Int64? {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
      let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    let number = of(year: year, month: month, day: day)
    return civil(number) == (year, month, day) ? number : nil
  }
}

/// Which paywall a purchase is credited to: the variation the SDK named, else the last flow
/// the profile saw within 24 h before buying; renewals and refunds follow their original.
/// Empty ids mean "unattributed".
public struct PurchaseAttribution: Sendable, Hashable {
  public var placementId = ""
  public var audienceId = ""
  public var variationId = ""
  /// The profile the purchase belongs to, when known.
  public var profileId: String?

  public init(placementId: String = "", audienceId: String = "", variationId: String = "", profileId: String? = nil) {
    self.placementId = placementId
    self.audienceId = audienceId
    self.variationId = variationId
    self.profileId = profileId
  }

  /// A variation id as the server issues them: `placement:audience:flow`.
  package init?(variationId: String, profileId: String?) {
    let parts = variationId.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
    self.init(
      placementId: String(parts[0]), audienceId: String(parts[1]), variationId: variationId, profileId: profileId)
  }

  public var isAttributed: Bool { !variationId.isEmpty }

  /// How long before a purchase a shown flow still gets the credit.
  public static let window: TimeInterval = 24 * 3600
}

/// Whether a subscription began with a free trial, and when it first paid after it: one
/// definition for the live rollups and the rebuild.
public struct TrialFacts: Sendable, Hashable {
  public var trialDay: Int64?
  public var convertedDay: Int64?

  /// Every stored field.
  package init(trialDay: Int64? = nil, convertedDay: Int64? = nil) {
    self.trialDay = trialDay
    self.convertedDay = convertedDay
  }

  public static func of(_ transactions: [TransactionPayload]) -> TrialFacts {
    let ordered = transactions.sorted { ($0.purchaseDate, $0.transactionId) < ($1.purchaseDate, $1.transactionId) }
    guard let first = ordered.first, first.isFreeTrial else { return TrialFacts() }
    let paid = ordered.dropFirst().first { !$0.isFreeTrial && $0.purchaseDate >= first.purchaseDate }
    return TrialFacts(
      trialDay: StatsDay.of(milliseconds: first.purchaseDate),
      convertedDay: paid.map { StatsDay.of(milliseconds: $0.purchaseDate) })
  }
}

/// A paying viewer's contribution to the revenue model's sufficient statistics, in exact
/// integers so live updates (remove the old contribution, add the new) and a rebuild agree to
/// the unit: a payer whose net revenue is positive counts once, with log(net in currency units)
/// in millionths and its square (from that rounded value) in millionths.
public struct PayerMoments: Sendable, Hashable {
  public var payers: Int64 = 0
  /// Net revenue, in the currency's milliunits.
  public var net: Int64 = 0
  /// Σ log x, × 10⁶.
  public var logSum: Int64 = 0
  /// Σ (log x)², × 10⁶.
  public var logSquares: Int64 = 0

  public init(payers: Int64 = 0, net: Int64 = 0, logSum: Int64 = 0, logSquares: Int64 = 0) {
    self.payers = payers
    self.net = net
    self.logSum = logSum
    self.logSquares = logSquares
  }

  static let scale = 1_000_000.0

  /// One payer with this net revenue (milliunits); nothing when it is not positive.
  public static func payer(net: Int64) -> PayerMoments {
    guard net > 0 else { return PayerMoments() }
    let log = (Foundation.log(Double(net) / 1000) * scale).rounded()
    // |log| < 10⁸ for any amount, so its square is exact in a Double.
    return PayerMoments(payers: 1, net: net, logSum: Int64(log), logSquares: Int64((log * log / scale).rounded()))
  }

  public static func + (a: PayerMoments, b: PayerMoments) -> PayerMoments {
    PayerMoments(
      payers: a.payers + b.payers, net: a.net + b.net, logSum: a.logSum + b.logSum,
      logSquares: a.logSquares + b.logSquares)
  }

  public static func - (a: PayerMoments, b: PayerMoments) -> PayerMoments {
    PayerMoments(
      payers: a.payers - b.payers, net: a.net - b.net, logSum: a.logSum - b.logSum,
      logSquares: a.logSquares - b.logSquares)
  }

  public var isZero: Bool { self == PayerMoments() }
}

extension TransactionPayload {
  /// Money changed hands: a price above zero that is not a free trial.
  package var isPaid: Bool { (price ?? 0) > 0 && !isFreeTrial }

  /// An introductory free trial.
  package var isFreeTrial: Bool { offerType == 1 && offerDiscountType == "FREE_TRIAL" }
  /// Not a renewal: a purchase a person made (a trial start counts).
  package var isPurchase: Bool {
    transactionReason != "RENEWAL" && (transactionId == originalTransactionId || transactionReason == "PURCHASE")
  }
  package var purchaseDay: Int64 { StatsDay.of(milliseconds: purchaseDate) }
  package var revocationDay: Int64? { revocationDate.map { StatsDay.of(milliseconds: $0) } }
  /// ISO 4217 code, or `XXX` when Apple sent none.
  package var currencyCode: String { currency ?? "XXX" }
}
