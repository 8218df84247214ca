import Foundation
import TollgateAPI
import TollgateDomain

/// A rollup row's key as a contribution keeps it: its fields, in order, as text.
protocol ContributionKey: Codable, Hashable, Comparable {
  var storedFields: [String] { get }
  init?(storedFields: [String])
}

extension CohortAge: ContributionKey {
  var storedFields: [String] { [String(age), currency, environment] }

  init?(storedFields fields: [String]) {
    guard fields.count == 3, let age = Int64(fields[0]) else { return nil }
    self.init(age: age, currency: fields[1], environment: fields[2])
  }
}

extension SubscriptionDay: ContributionKey {
  var storedFields: [String] { [String(day), product, currency, environment] }

  init?(storedFields fields: [String]) {
    guard fields.count == 4, let day = Int64(fields[0]) else { return nil }
    self.init(day: day, product: fields[1], currency: fields[2], environment: fields[3])
  }
}

/// The rows of a contribution as stored in its `changes` column: one line per row after a
/// version line, the key's fields and the counters each joined by commas, the two parts by a
/// bar (`t1\n30,USD,production|0,0,1,9990`). A contribution is read and written again by every
/// fact of its entity, and JSON made that a large part of recording one: three years of monthly
/// cohort rows (36) took about 440 µs to decode and as long to encode with `JSONDecoder` and
/// `JSONEncoder`, about 60 µs each here. Rows stored as JSON before are still read.
enum ContributionText {
  static let version = "t1"

  /// The stored text of `entries` (in the order given: callers sort them).
  static func encode<Key: ContributionKey>(_ entries: [(key: Key, counters: [Int64])]) -> String {
    var text = version
    for entry in entries {
      text += "\n"
      text += entry.key.storedFields.map(escaped).joined(separator: ",")
      text += "|"
      text += entry.counters.map(String.init).joined(separator: ",")
    }
    return text
  }

  /// The rows of a stored text, either form.
  static func decode<Key: ContributionKey>(_ text: String, as: Key.Type) throws -> [(key: Key, counters: [Int64])] {
    if text.hasPrefix("[") {
      return try WireCoding.decoder.decode([StoredJSONEntry<Key>].self, from: Data(text.utf8)).map {
        ($0.where, $0.counters)
      }
    }
    // Bytes, not Characters: splitting a String by Character walks grapheme clusters, which
    // made this half as slow as JSON.
    var lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false)[...]
    guard let first = lines.popFirst(), first.elementsEqual(version.utf8) else {
      throw StoreError.database("a contribution's rows are in a form this version cannot read")
    }
    return try lines.map { line in
      guard let bar = line.firstIndex(of: 0x7C), line.lastIndex(of: 0x7C) == bar else { throw unreadable(line) }
      let fields = line[..<bar].split(separator: 0x2C, omittingEmptySubsequences: false).map(unescaped)
      let counters = try line[(bar + 1)...].split(separator: 0x2C).map { digits in
        guard let number = integer(digits) else { throw unreadable(line) }
        return number
      }
      guard let key = Key(storedFields: fields) else { throw unreadable(line) }
      return (key, counters)
    }
  }

  /// A decimal integer's bytes (an optional minus, then digits), nil if not one or out of range.
  private static func integer(_ digits: ArraySlice<UInt8>) -> Int64? {
    var rest = digits[...]
    let negative = rest.first == 0x2D
    if negative { rest = rest.dropFirst() }
    guard !rest.isEmpty else { return nil }
    var value: Int64 = 0
    for digit in rest {
      guard (0x30...0x39).contains(digit) else { return nil }
      let (times, over) = value.multipliedReportingOverflow(by: 10)
      let (sum, past) =
        negative
        ? times.subtractingReportingOverflow(Int64(digit - 0x30)) : times.addingReportingOverflow(Int64(digit - 0x30))
      guard !over, !past else { return nil }
      value = sum
    }
    return value
  }

  /// A row as JSON kept it (`{"where": …, "counters": […]}`).
  private struct StoredJSONEntry<Key: Codable>: Decodable {
    var `where`: Key
    var counters: [Int64]
  }

  private static func unreadable(_ line: ArraySlice<UInt8>) -> StoreError {
    StoreError.database("a contribution's row is unreadable: \(String(decoding: line.prefix(200), as: UTF8.self))")
  }

  /// Everything but the characters that separate fields, rows and parts, and the escape itself.
  private static let plain = CharacterSet(charactersIn: "%,|\n\r").inverted

  /// Those characters as `%XX`, undone by `removingPercentEncoding`.
  private static func escaped(_ field: String) -> String {
    // Almost no field has one: the common case stays a byte scan.
    guard field.utf8.contains(where: { $0 == 0x25 || $0 == 0x2C || $0 == 0x7C || $0 == 0x0A || $0 == 0x0D }) else {
      return field
    }
    return field.addingPercentEncoding(withAllowedCharacters: plain) ?? field
  }

  private static func unescaped(_ field: ArraySlice<UInt8>) -> String {
    let text = String(decoding: field, as: UTF8.self)
    guard field.contains(0x25) else { return text }
    return text.removingPercentEncoding ?? text
  }
}
