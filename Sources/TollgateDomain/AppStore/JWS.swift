import Foundation
import TollgateSupport

/// A JWS in compact serialization (`header.payload.signature`), split and decoded but not
/// yet trusted: nothing here says who signed it.
package struct CompactJWS {
  /// The protected header's JSON bytes.
  package let header: Data
  /// The payload's bytes.
  package let payload: Data
  /// The signature's bytes.
  package let signature: Data
  /// `header.payload` as sent: what the signature covers.
  package let signingInput: Data

  /// Splits and base64url-decodes; nil unless there are exactly three decodable parts.
  package init?(_ text: String) {
    // Split on the bytes: splitting the String walks it by grapheme cluster, and was a fifth of
    // recording an imported history (an Apple JWS is 4–5 KB, most of it the x5c chain).
    let bytes = text.utf8
    let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard parts.count == 3,
      let header = Self.base64URLDecode(Substring(parts[0])),
      let payload = Self.base64URLDecode(Substring(parts[1])),
      let signature = Self.base64URLDecode(Substring(parts[2]))
    else { return nil }
    self.header = header
    self.payload = payload
    self.signature = signature
    self.signingInput = Data(bytes[parts[0].startIndex..<parts[1].endIndex])
  }

  /// base64url without padding (RFC 7515 §2); padding and the standard alphabet are refused.
  static func base64URLDecode(_ text: Substring) -> Data? { Base64URL.decode(text) }

  /// base64url without padding.
  package static func base64URLEncode(_ data: Data) -> String { Base64URL.encode(data) }
}
