import Foundation

/// base64url without padding (RFC 7515 §2), as JOSE writes every part of a token and key.
package enum Base64URL {
  /// The bytes of `text`; nil for padding, the standard alphabet's `+` and `/`, or bad input.
  package static func decode(_ text: Substring) -> Data? {
    // Byte by byte: `replacingOccurrences` goes through NSString on Linux, and was a fifth of
    // verifying a transaction.
    var standard: [UInt8] = []
    standard.reserveCapacity(text.utf8.count + 3)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"): return nil
      case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
      case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
      default: standard.append(byte)
      }
    }
    guard !standard.isEmpty else { return nil }
    standard += Array(repeating: UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: Data(standard))
  }

  /// `data` in base64url, unpadded.
  package static func encode(_ data: Data) -> String {
    var url: [UInt8] = []
    for byte in data.base64EncodedData() {
      switch byte {
      case UInt8(ascii: "="): continue
      case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
      case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
      default: url.append(byte)
      }
    }
    return String(decoding: url, as: UTF8.self)
  }
}
