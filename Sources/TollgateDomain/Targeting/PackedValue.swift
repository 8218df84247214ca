import Foundation
import TollgateAPI
import TollgateSupport

/// The byte form of attribute values in a packed profile: a tag byte, then the value —
/// integers as zig-zag varints, strings as an interned id or inline UTF-8, arrays and
/// objects as a count and their elements. Compact, and read in place without building a
/// dictionary; only the value a rule asks for is decoded.
package enum PackedValue {
  enum Tag: UInt8 {
    case absent = 0, null, falseValue, trueValue, int, double, inlineString, internedString, array, object
    /// A creation time (seconds since the reference date, a Double's bits): `profile.age_days`
    /// is computed from it when read.
    case ageBase
  }

  /// Strings longer than this are never interned (they are rarely shared).
  static let internLimit = 64

  package static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
  }

  /// Appends `value` (nil: absent), interning strings in `strings` when given.
  static func append(_ value: JSONValue?, to bytes: inout [UInt8], strings: StringTable?) {
    guard let value else { return bytes.append(Tag.absent.rawValue) }
    switch value {
    case .null: bytes.append(Tag.null.rawValue)
    case .bool(let flag): bytes.append((flag ? Tag.trueValue : Tag.falseValue).rawValue)
    case .int(let number):
      bytes.append(Tag.int.rawValue)
      appendVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), to: &bytes)
    case .double(let number):
      bytes.append(Tag.double.rawValue)
      appendDouble(number, to: &bytes)
    case .string(let text):
      appendString(text, to: &bytes, strings: strings)
    case .array(let elements):
      bytes.append(Tag.array.rawValue)
      appendVarint(UInt64(elements.count), to: &bytes)
      for element in elements { append(element, to: &bytes, strings: strings) }
    case .object(let members):
      bytes.append(Tag.object.rawValue)
      appendVarint(UInt64(members.count), to: &bytes)
      for (key, member) in members.sorted(by: { $0.key < $1.key }) {
        appendString(key, to: &bytes, strings: nil)
        append(member, to: &bytes, strings: strings)
      }
    }
  }

  private static func appendString(_ text: String, to bytes: inout [UInt8], strings: StringTable?) {
    // Values may take half the table; the rest stays for placement and variation ids.
    if let strings, text.utf8.count <= internLimit, let id = strings.id(for: text, within: strings.capacity / 2) {
      bytes.append(Tag.internedString.rawValue)
      appendVarint(UInt64(id), to: &bytes)
      return
    }
    bytes.append(Tag.inlineString.rawValue)
    appendVarint(UInt64(text.utf8.count), to: &bytes)
    bytes.append(contentsOf: text.utf8)
  }

  /// Reads packed bytes from a cursor. Bytes are trusted (this process wrote them); a
  /// truncated or unknown byte reads as absent rather than trapping.
  package struct Reader {
    let bytes: UnsafeRawBufferPointer
    package var offset = 0
    let strings: StringTable?

    /// Every stored field.
    package init(bytes: UnsafeRawBufferPointer, strings: StringTable?) {
      self.bytes = bytes
      self.strings = strings
    }

    var atEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8? {
      guard offset < bytes.count else { return nil }
      defer { offset += 1 }
      return bytes[offset]
    }

    package mutating func varint() -> UInt64? {
      var result: UInt64 = 0
      var shift: UInt64 = 0
      while let next = byte() {
        result |= UInt64(next & 0x7f) << shift
        if next < 0x80 { return result }
        shift += 7
        if shift > 63 { return nil }
      }
      return nil
    }

    mutating func double() -> Double? {
      guard offset + 8 <= bytes.count else { return nil }
      var bits: UInt64 = 0
      for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
      offset += 8
      return Double(bitPattern: bits)
    }

    mutating func string(_ tag: Tag) -> String? {
      guard let number = varint() else { return nil }
      if tag == .internedString { return strings?.string(UInt32(truncatingIfNeeded: number)) }
      let length = Int(number)
      guard offset + length <= bytes.count else { return nil }
      defer { offset += length }
      return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length]), as: UTF8.self)
    }

    /// The next value (nil: absent); `now` turns an age base into whole days.
    mutating func value(now: Date) -> JSONValue? {
      guard let raw = byte(), let tag = Tag(rawValue: raw) else { return nil }
      switch tag {
      case .absent: return nil
      case .null: return .null
      case .falseValue: return .bool(false)
      case .trueValue: return .bool(true)
      case .int:
        guard let zigzag = varint() else { return nil }
        return .int(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
      case .double: return double().map(JSONValue.double)
      case .inlineString, .internedString: return string(tag).map(JSONValue.string)
      case .array:
        guard let count = varint() else { return nil }
        var elements: [JSONValue] = []
        elements.reserveCapacity(Int(min(count, 64)))
        for _ in 0..<count { elements.append(value(now: now) ?? .null) }
        return .array(elements)
      case .object:
        guard let count = varint() else { return nil }
        var members: [String: JSONValue] = [:]
        for _ in 0..<count {
          guard let keyTag = byte().flatMap(Tag.init(rawValue:)), let key = string(keyTag) else { return nil }
          members[key] = value(now: now) ?? .null
        }
        return .object(members)
      case .ageBase:
        guard let created = double() else { return nil }
        return .int(Int64(max(0, now.timeIntervalSince(Date(timeIntervalSinceReferenceDate: created))) / 86_400))
      }
    }

    /// Steps over the next value without building it.
    mutating func skip() {
      guard let raw = byte(), let tag = Tag(rawValue: raw) else { return }
      switch tag {
      case .absent, .null, .falseValue, .trueValue: return
      case .int, .internedString: _ = varint()
      case .double, .ageBase: offset += 8
      case .inlineString: offset += Int(varint() ?? 0)
      case .array:
        for _ in 0..<(varint() ?? 0) { skip() }
      case .object:
        for _ in 0..<(varint() ?? 0) {
          skip()
          skip()
        }
      }
    }
  }
}

/// A packed profile's bytes: up to 32 held inline (no allocation to copy or keep), more in an
/// array.
package enum PackedBytes: Sendable {
  /// Four words of inline storage.
  package typealias Words = (UInt64, UInt64, UInt64, UInt64)

  /// How many bytes fit inline.
  static let inlineCapacity = MemoryLayout<Words>.size

  case inline(Words, count: UInt8)
  case heap([UInt8])

  /// Inline when they fit.
  package init(_ bytes: [UInt8]) {
    if let words = Self.words(bytes) {
      self = .inline(words, count: UInt8(bytes.count))
    } else {
      self = .heap(bytes)
    }
  }

  /// The inline form of `bytes`, nil when they do not fit.
  package static func words(_ bytes: [UInt8]) -> Words? {
    guard bytes.count <= inlineCapacity else { return nil }
    var words: Words = (0, 0, 0, 0)
    bytes.withUnsafeBytes { source in withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: source) } }
    return words
  }

  var count: Int {
    switch self {
    case .inline(_, let count): return Int(count)
    case .heap(let bytes): return bytes.count
    }
  }

  package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    switch self {
    case .inline(let words, let count):
      return try Swift.withUnsafeBytes(of: words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count)))) }
    case .heap(let bytes):
      return try bytes.withUnsafeBytes(body)
    }
  }

  /// A copy as an array.
  var array: [UInt8] { withUnsafeBytes { Array($0) } }
}
