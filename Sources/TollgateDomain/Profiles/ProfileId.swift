import TollgateSupport

/// Profile ids are UUIDs in their 36-character form, kept lower-cased. Parsed by hand: this
/// runs several times per placement request, and Foundation's parser goes through `sscanf`.
package enum ProfileId {
  /// The id lower-cased, or nil when `text` is not a UUID (`8-4-4-4-12` hex digits, any case).
  /// An id already in that form is returned as it is (no copy).
  package static func canonical(_ text: String) -> String? {
    guard let (_, _, lowercase) = parse(text) else { return nil }
    return lowercase ? text : text.lowercased()
  }

  /// The 128 bits of a UUID as two words, nil when `text` is not one.
  package static func words(_ text: String) -> (high: UInt64, low: UInt64)? {
    parse(text).map { ($0.high, $0.low) }
  }

  private static func parse(_ text: String) -> (high: UInt64, low: UInt64, lowercase: Bool)? {
    var text = text
    return text.withUTF8 { bytes -> (UInt64, UInt64, Bool)? in
      guard bytes.count == 36 else { return nil }
      var high: UInt64 = 0
      var low: UInt64 = 0
      var digits = 0
      var lowercase = true
      for (offset, byte) in bytes.enumerated() {
        if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
          guard byte == UInt8(ascii: "-") else { return nil }
          continue
        }
        let value: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"):
          value = byte - UInt8(ascii: "A") + 10
          lowercase = false
        default: return nil
        }
        if digits < 16 {
          high = high << 4 | UInt64(value)
        } else {
          low = low << 4 | UInt64(value)
        }
        digits += 1
      }
      return (high, low, lowercase)
    }
  }
}
