import Foundation
import TollgateSupport

/// An amount of money as a report shows it: an exact decimal, rounded half away from zero to
/// its currency's minor unit (cents, yen, fils), written in JSON as a number with exactly those
/// digits — 215.67, never a float's 215.67059999999998.
public struct Money: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
  /// The rounded amount, in the currency's units.
  public let amount: Decimal
  /// The digits after the point it was rounded to (how a table writes it: 9.90, ¥230).
  public let digits: Int

  /// `amount` rounded to `currency`'s minor unit (two digits for a code the table lacks).
  public init(_ amount: Decimal, currency: String) {
    digits = Self.minorDigits(currency)
    self.amount = Self.rounded(amount, digits: digits)
  }

  /// Apple's milliunits (230000 JPY = ¥230) of `currency`, rounded to its minor unit.
  public init(thousandths: Int64, currency: String) {
    self.init(Decimal(thousandths) / 1000, currency: currency)
  }

  /// An amount already rounded to `digits` (the converter's integer arithmetic).
  init(rounded amount: Decimal, digits: Int) {
    self.amount = amount
    self.digits = digits
  }

  /// An amount already as it should be shown (decoded, or written by hand in a test).
  public init(exactly amount: Decimal) {
    self.amount = amount
    digits = max(0, -amount.exponent)
  }

  public init(from decoder: any Decoder) throws {
    self.init(exactly: try decoder.singleValueContainer().decode(Decimal.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(amount)
  }

  /// For charts and ratios, never for sums.
  public var doubleValue: Double { NSDecimalNumber(decimal: amount).doubleValue }

  public var description: String { "\(amount)" }

  /// The amount with exactly its minor unit's digits: "9.90", "230", "1.250".
  public var text: String {
    let plain = "\(amount)"
    guard digits > 0 else { return plain }
    let parts = plain.split(separator: ".", maxSplits: 1)
    let fraction = parts.count > 1 ? String(parts[1]) : ""
    return String(parts[0]) + "." + fraction.padding(toLength: max(digits, fraction.count), withPad: "0", startingAt: 0)
  }

  /// Two amounts are equal when they are the same number, however they were rounded.
  public static func == (a: Money, b: Money) -> Bool { a.amount == b.amount }

  public func hash(into hasher: inout Hasher) { hasher.combine(amount) }

  public static func < (a: Money, b: Money) -> Bool { a.amount < b.amount }

  /// Digits after the point in a currency's minor unit (ISO 4217); 2 for the rest.
  public static func minorDigits(_ currency: String) -> Int {
    switch currency {
    case "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF",
      "XOF", "XPF":
      return 0
    case "BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND": return 3
    case "CLF", "UYW": return 4
    default: return 2
    }
  }

  /// `value` rounded to `digits` after the point, half away from zero.
  static func rounded(_ value: Decimal, digits: Int) -> Decimal {
    var input = value
    var result = Decimal()
    NSDecimalRound(&result, &input, digits, .plain)
    return result
  }
}

/// Converts amounts of several currencies into one report currency, exactly. A sum that would
/// leave out a nonzero amount of a currency without a rate is nil: a partial total reads as the
/// whole (a spend of 0 reads as free installs), so the figure is absent and the currency is
/// named in the report's `unconverted`.
public struct CurrencyConverter: Sendable {
  /// The report's currency; nil when there is none (several currencies and no reporting one).
  public let currency: String?
  private let rates: [String: Decimal]
  /// Every rate as an integer over one power of ten (1.08 = 108 / 10², 1 = 100 / 10²), for
  /// figures made by the thousand (`exactSum`); nil when a rate has too many digits for that.
  private let scaled: (multipliers: [String: Int128], unit: Int128)?
  /// The report currency's minor unit (digits, and 10^digits), looked up once: a cohort table
  /// makes thousands of figures.
  private let minorDigits: Int
  private let minorUnits: UInt128

  /// The reporting settings' rates into `currency` (1 for `currency` itself).
  public init(currency: String?, reporting: ReportingSettings?) {
    self.currency = currency
    // A rate written as 0.92 in the configuration is the decimal 0.92, not the nearest double.
    rates = (reporting?.rates ?? [:]).compactMapValues { Decimal(string: String($0)) }
    scaled = Self.scaled(rates)
    minorDigits = currency.map(Money.minorDigits) ?? 2
    minorUnits = (0..<minorDigits).reduce(1) { value, _ in value * 10 }
  }

  /// `rates` as integers over 10^digits, the fewest digits that write them all exactly.
  private static func scaled(_ rates: [String: Decimal]) -> (multipliers: [String: Int128], unit: Int128)? {
    var fractions: [String: (whole: Int128, digits: Int)] = [:]
    for (code, rate) in rates {
      // A decimal's text is exact: its digits, a point, no exponent.
      let text = "\(rate)"
      let parts = text.split(separator: ".", maxSplits: 1)
      let decimals = parts.count == 2 ? parts[1].count : 0
      guard decimals <= 12, let whole = Int128(parts.joined()), whole.magnitude < 1_000_000_000_000_000_000 else {
        return nil
      }
      fractions[code] = (whole, decimals)
    }
    let digits = fractions.values.map(\.digits).max() ?? 0
    func power(_ exponent: Int) -> Int128 { (0..<exponent).reduce(1) { value, _ in value * 10 } }
    return (fractions.mapValues { $0.whole * power(digits - $0.digits) }, power(digits))
  }

  /// The rate from `code` into the report's currency; nil without one.
  public func rate(_ code: String) -> Decimal? {
    guard let currency else { return nil }
    return code == currency ? 1 : rates[code]
  }

  /// Milliunits of `code` in the report's currency; nil when nonzero and without a rate.
  public func units(_ thousandths: Int64, _ code: String) -> Decimal? {
    if thousandths == 0 { return currency == nil ? nil : 0 }
    return rate(code).map { Decimal(thousandths) / 1000 * $0 }
  }

  /// The sum of amounts by currency (milliunits) in the report's currency, or nil.
  public func sum(_ amounts: [String: Int64]) -> Decimal? {
    var total: Decimal = 0
    for (code, amount) in amounts {
      guard let converted = units(amount, code) else { return nil }
      total += converted
    }
    return currency == nil ? nil : total
  }

  /// What `sum` gives, as an exact integer: a count of 10^-(3 + the rates' digits) of the
  /// report's currency. Summing and dividing integers is what lets a cohort table make its
  /// thousands of figures quickly; `tooLarge` when they would overflow or a rate has more than
  /// 12 decimals (then use `sum`).
  public enum ExactSum: Sendable, Equatable {
    case amount(Int128)
    /// `sum` is nil.
    case absent
    case tooLarge
  }

  /// `sum(amounts)` as an `ExactSum`.
  public func exactSum(_ amounts: [String: Int64]) -> ExactSum {
    guard let currency else { return .absent }
    guard let scaled else { return .tooLarge }
    var total: Int128 = 0
    for (code, amount) in amounts where amount != 0 {
      guard let multiplier = code == currency ? scaled.unit : scaled.multipliers[code] else { return .absent }
      let (product, overflowed) = Int128(amount).multipliedReportingOverflow(by: multiplier)
      let (sum, overflowedAgain) = total.addingReportingOverflow(product)
      guard !overflowed, !overflowedAgain else { return .tooLarge }
      total = sum
    }
    return .amount(total)
  }

  /// `amount` (an `exactSum`) divided by `count`, as shown: rounded half away from zero to the
  /// currency's minor unit, as `money(sum?.per(count))` would be. Nil without a currency, a
  /// count, or when the integers would overflow.
  public func money(_ amount: Int128, per count: Int128) -> Money? {
    guard currency != nil, let scaled, count > 0 else { return nil }
    let (divisor, overflowed) = (1000 * scaled.unit).multipliedReportingOverflow(by: count)
    let (numerator, overflowedAgain) = amount.magnitude.multipliedReportingOverflow(by: minorUnits)
    // Half away from zero: ⌊(2n + d) / 2d⌋ of the magnitude, then the sign.
    guard !overflowed, !overflowedAgain, numerator <= UInt128.max / 4 else { return nil }
    let rounded = (2 * numerator + UInt128(divisor)) / (2 * UInt128(divisor))
    guard rounded <= UInt128(UInt64.max) else { return nil }
    let value = Decimal(
      sign: amount < 0 && rounded > 0 ? .minus : .plus, exponent: -minorDigits, significand: Decimal(UInt64(rounded)))
    return Money(rounded: value, digits: minorDigits)
  }

  /// An amount in the report's currency as shown.
  public func money(_ value: Decimal?) -> Money? {
    guard let value, let currency else { return nil }
    return Money(value, currency: currency)
  }
}

extension Decimal {
  /// `self / count`, nil without a count.
  func per(_ count: Int64) -> Decimal? { count > 0 ? self / Decimal(count) : nil }

  /// For ratios (ROAS, shares), never for money.
  var doubleValue: Double { NSDecimalNumber(decimal: self).doubleValue }
}
