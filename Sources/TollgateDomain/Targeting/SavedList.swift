import Foundation
import TollgateAPI
import TollgateSupport

/// A saved list's values in memory, for `$inGroup`/`$notInGroup`: every value's UTF-8 bytes
/// in one buffer, found through an open-addressing table of offsets (kept at most half
/// full), so membership is one hash and a byte comparison or two — no scan, and a million
/// 36-character ids take about 50 MB rather than a `Set<String>`'s hundred.
public final class SavedList: Sendable {
  /// The list's id.
  public let id: String
  /// Distinct values.
  public let count: Int
  private let bytes: [UInt8]
  /// Start of value `i` at `starts[i]`, its end at `starts[i + 1]`.
  private let starts: [Int32]
  /// Value index + 1 per slot; 0 is empty.
  private let slots: [Int32]
  private let mask: Int

  /// The most values a list holds.
  public static let maximumValues = 1_000_000
  /// The longest value, in Unicode code points (as JSON Schema's `maxLength` counts).
  public static let maximumValueLength = 256

  /// Builds the table from distinct values (as `SavedListValues` leaves them).
  public init(id: String, values: [String]) {
    self.id = id
    var bytes: [UInt8] = []
    bytes.reserveCapacity(values.reduce(0) { $0 + $1.utf8.count })
    var starts: [Int32] = [0]
    starts.reserveCapacity(values.count + 1)
    var capacity = 16
    while capacity < values.count * 2 { capacity <<= 1 }
    var slots = [Int32](repeating: 0, count: capacity)
    let mask = capacity - 1
    for (index, value) in values.enumerated() {
      bytes.append(contentsOf: value.utf8)
      starts.append(Int32(bytes.count))
      var slot = Self.hash(value.utf8) & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(index + 1)
    }
    self.count = values.count
    self.bytes = bytes
    self.starts = starts
    self.slots = slots
    self.mask = mask
  }

  /// Whether the text is in the list.
  public func contains(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { probe in
      var slot = Self.hash(probe) & mask
      while true {
        let entry = Int(slots[slot])
        if entry == 0 { return false }
        let start = Int(starts[entry - 1])
        let end = Int(starts[entry])
        if end - start == probe.count && bytes[start..<end].elementsEqual(probe) { return true }
        slot = (slot + 1) & mask
      }
    }
  }

  /// Membership of an attribute's value: a string as it is, an integer as its decimal
  /// digits (lists hold text; `[1, 2]` uploads as "1", "2"), an array when any element is in.
  func contains(_ value: JSONValue) -> Bool {
    switch value {
    case .string(let text): return contains(text)
    case .int(let number): return contains(String(number))
    case .double(let number) where number.rounded() == number && abs(number) < 1e15:
      return contains(String(Int64(number)))
    case .array(let elements): return elements.contains { contains($0) }
    default: return false
    }
  }

  /// FNV-1a over the bytes, then mixed: stable across processes, cheap for short ids.
  private static func hash(_ bytes: some Sequence<UInt8>) -> Int {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    hash ^= hash >> 29
    hash = hash &* 0xbf58_476d_1ce4_e5b9
    return Int(truncatingIfNeeded: hash ^ (hash >> 32))
  }
}

/// The values of an upload, checked and made distinct and sorted: the form lists are stored
/// in (one value a line) and checksummed over.
public struct SavedListValues: Sendable, Hashable {
  /// Distinct values, sorted by their UTF-8 bytes.
  public let values: [String]

  /// Checks and normalises values; the problems name each bad value's position (`$[3]`, or
  /// `line 4` for text) — at most 20 of them.
  public static func make(
    _ raw: [String], limit: Int = SavedList.maximumValues, positions: (Int) -> String
  ) -> Result<SavedListValues, DomainError> {
    var problems: [APIError.Detail] = []
    for (index, value) in raw.enumerated() where problems.count < 20 {
      if value.isEmpty {
        problems.append(.init(path: positions(index), message: "a value is not empty"))
      } else if value.unicodeScalars.count > SavedList.maximumValueLength {
        problems.append(
          .init(path: positions(index), message: "at most \(SavedList.maximumValueLength) characters a value"))
      } else if value.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\u{0}" }) {
        problems.append(.init(path: positions(index), message: "a value holds no line break and no NUL"))
      }
    }
    guard problems.isEmpty else { return .failure(.validation(problems)) }
    let distinct = Array(Set(raw)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    guard distinct.count <= limit else {
      return .failure(
        .validation([.init(path: "$", message: "at most \(limit) distinct values (got \(distinct.count))")]))
    }
    return .success(SavedListValues(values: distinct))
  }

  private init(values: [String]) { self.values = values }

  /// Values as stored: one a line.
  public var text: String { values.joined(separator: "\n") }

  /// SHA-256 (hex) of `text`: equal lists have equal checksums, whatever order or repeats
  /// they were uploaded with.
  public var checksum: String { Digest.sha256Hex(text) }

  /// Reads stored text back (already checked when it was stored).
  public init(stored text: String) {
    values = text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }
}
