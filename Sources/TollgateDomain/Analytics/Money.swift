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

  /// The reporting settings' rates into `currency` (1 for `currency` itself).
  public init(currency: String?, reporting: ReportingSettings?) {
    self.currency = currency
    // A rate written as 0.92 in the configuration is the decimal 0.92, not the nearest double.
    rates = (reporting?.rates ?? [:]).compactMapValues { Decimal(string: String($0)) }
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
