import Adapty
import Foundation
import TollgateAPI

/// Product tokens in paywall texts: `{price}`, `{period}`, `{price_per_week}`,
/// `{price_per_month}`, `{product_title}`, `{intro_offer}`, `{intro_price}`, `{trial_days}`.
/// Words come from a small table (English where a language is missing); money is written like
/// the store's own `display_price`, so no currency formatting of ours can disagree with it.
enum PaywallTokens {
  /// Period words by language: day, week, month, year (singular, plural) and "free".
  static let words: [String: (units: [Character: (String, String)], free: String)] = [
    "en": (["D": ("day", "days"), "W": ("week", "weeks"), "M": ("month", "months"), "Y": ("year", "years")], "free"),
    "fr": (
      ["D": ("jour", "jours"), "W": ("semaine", "semaines"), "M": ("mois", "mois"), "Y": ("an", "ans")], "gratuit"
    ),
    "de": (
      ["D": ("Tag", "Tage"), "W": ("Woche", "Wochen"), "M": ("Monat", "Monate"), "Y": ("Jahr", "Jahre")], "gratis"
    ),
    "es": (["D": ("día", "días"), "W": ("semana", "semanas"), "M": ("mes", "meses"), "Y": ("año", "años")], "gratis"),
  ]

  /// `text` with every known token replaced for `product` (empty when it has no such value).
  static func fill(_ text: String, product: PaywallStoreProduct?, locale: String) -> String {
    PaywallDocument.replacingTokens(in: text) { name in
      PaywallDocument.tokens.contains(name) ? value(name, product: product, locale: locale) : nil
    }
  }

  static func value(_ token: String, product: PaywallStoreProduct?, locale: String) -> String {
    guard let product else { return "" }
    let language = String(LocaleMatcher.normalize(locale).split(separator: "-").first ?? "en")
    let table = words[language] ?? words["en"]!
    switch token {
    case "price": return product.displayPrice
    case "product_title": return product.title
    case "period": return product.period.flatMap { period($0, table: table) } ?? ""
    case "price_per_week", "price_per_month":
      guard let period = product.period.flatMap(parse), let price = Double(product.price) else { return "" }
      let (count, unit) = period
      let weeks: Double = [
        "D": Double(count) / 7, "W": Double(count), "M": Double(count) * 52 / 12, "Y": Double(count) * 52,
      ][unit]!
      let months: Double =
        ["D": Double(count) / 30, "W": Double(count) * 12 / 52, "M": Double(count), "Y": Double(count) * 12][unit]!
      return written(price / (token == "price_per_week" ? weeks : months), like: product.displayPrice)
    case "intro_price": return product.intro?.displayPrice ?? ""
    case "intro_offer":
      guard let intro = product.intro else { return "" }
      return intro.kind == "free_trial" ? table.free : intro.displayPrice ?? ""
    case "trial_days":
      guard let intro = product.intro, intro.kind == "free_trial", let (count, unit) = parse(intro.period) else {
        return ""
      }
      return String(count * ["D": 1, "W": 7, "M": 30, "Y": 365][unit]!)
    default: return ""
    }
  }

  /// `P3M` → (3, "M"); nil unless one count and one unit of D, W, M, Y.
  static func parse(_ period: String) -> (Int, Character)? {
    guard period.hasPrefix("P"), let unit = period.last, "DWMY".contains(unit),
      let count = Int(period.dropFirst().dropLast()), count > 0
    else { return nil }
    return (count, unit)
  }

  /// "month" for `P1M`, "3 months" for `P3M`.
  static func period(_ text: String, table: (units: [Character: (String, String)], free: String)) -> String? {
    guard let (count, unit) = parse(text), let names = table.units[unit] else { return nil }
    return count == 1 ? names.0 : "\(count) \(names.1)"
  }

  /// `amount` written in the store's format: the number in `displayPrice` replaced by
  /// `amount`, rounded half up to as many decimals (0 or 2) with the same decimal mark.
  static func written(_ amount: Double, like displayPrice: String) -> String {
    let characters = Array(displayPrice)
    // ASCII digits only, as the console's resolution reads them.
    let digit: (Character) -> Bool = { ("0"..."9").contains($0) }
    guard let start = characters.firstIndex(where: digit) else { return displayPrice }
    var end = start
    while end + 1 < characters.count,
      digit(characters[end + 1])
        || ((",." as String).contains(characters[end + 1]) && end + 2 < characters.count && digit(characters[end + 2]))
    {
      end += 1
    }
    let number = characters[start...end]
    let count = number.count
    let mark: Character? =
      count >= 4 && (",." as String).contains(number[number.index(number.endIndex, offsetBy: -3)])
      ? number[number.index(number.endIndex, offsetBy: -3)] : nil
    let text: String
    if let mark {
      let cents = Int((amount * 100).rounded(.toNearestOrAwayFromZero))
      let fraction = String(cents % 100)
      text = "\(cents / 100)\(mark)\(fraction.count == 1 ? "0" + fraction : fraction)"
    } else {
      text = String(Int(amount.rounded(.toNearestOrAwayFromZero)))
    }
    return String(characters[..<start]) + text + String(characters[(end + 1)...])
  }
}
