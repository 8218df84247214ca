import Foundation
import TollgateAPI
import TollgateDomain

/// A rollup row's key as a contribution keeps it: its fields, in order, as text.
protocol ContributionKey: Codable, Hashable, Comparable {
  var storedFields: [String] { get }
  init?(storedFields: [Substring])
}

extension CohortAge: ContributionKey {
  var storedFields: [String] { [String(age), currency, environment] }

  init?(storedFields fields: [Substring]) {
    guard fields.count == 3, let age = Int64(fields[0]) else { return nil }
    self.init(age: age, currency: String(fields[1]), environment: String(fields[2]))
  }
}

extension SubscriptionDay: ContributionKey {
  var storedFields: [String] { [String(day), product, currency, environment] }

  init?(storedFields fields: [Substring]) {
    guard fields.count == 4, let day = Int64(fields[0]) else { return nil }
    self.init(day: day, product: String(fields[1]), currency: String(fields[2]), environment: String(fields[3]))
  }
}

/// The rows of a contribution as stored in its `changes` column: one line per row after a
/// version line, the key's fields and the counters each joined by commas, the two parts by a
/// bar (`t1\n30,USD,production|0,0,1,9990`). A contribution is read and written again by every
/// fact of its entity, and JSON made that the costliest part of recording one: a year of
/// renewals (36 rows) took about 440 µs to decode and as long to encode with `JSONDecoder` and
/// `JSONEncoder`, against a few µs here. Rows stored as JSON before are still read.
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
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
    guard lines.popFirst() == Substring(version) else {
      throw StoreError.database("a contribution's rows are in a form this version cannot read")
    }
    return try lines.map { line in
      let parts = line.split(separator: "|", omittingEmptySubsequences: false)
      guard parts.count == 2 else { throw unreadable(line) }
      let fields = parts[0].split(separator: ",", omittingEmptySubsequences: false).map(unescaped)
      let counters = try parts[1].split(separator: ",").map { value -> Int64 in
        guard let number = Int64(value) else { throw unreadable(line) }
        return number
      }
      guard let key = Key(storedFields: fields) else { throw unreadable(line) }
      return (key, counters)
    }
  }

  /// A row as JSON kept it (`{"where": …, "counters": […]}`).
  private struct StoredJSONEntry<Key: Codable>: Decodable {
    var `where`: Key
    var counters: [Int64]
  }

  private static func unreadable(_ line: Substring) -> StoreError {
    StoreError.database("a contribution's row is unreadable: \(line.prefix(200))")
  }

  /// The characters that separate fields, rows and parts, and the escape itself, as `%XX`.
  private static func escaped(_ field: String) -> String {
    guard field.utf8.contains(where: { $0 == 0x25 || $0 == 0x2C || $0 == 0x7C || $0 == 0x0A || $0 == 0x0D }) else {
      return field
    }
    var out = ""
    for character in field.unicodeScalars {
      switch character {
      case "%": out += "%25"
      case ",": out += "%2C"
      case "|": out += "%7C"
      case "\n": out += "%0A"
      case "\r": out += "%0D"
      default: out.unicodeScalars.append(character)
      }
    }
    return out
  }

  private static func unescaped(_ field: Substring) -> Substring {
    guard field.utf8.contains(0x25) else { return field }
    return Substring(field.removingPercentEncoding ?? String(field))
  }
}
