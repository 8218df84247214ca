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
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3,
      let header = Self.base64URLDecode(parts[0]),
      let payload = Self.base64URLDecode(parts[1]),
      let signature = Self.base64URLDecode(parts[2])
    else { return nil }
    self.header = header
    self.payload = payload
    self.signature = signature
    self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
  }

  /// base64url without padding (RFC 7515 §2); padding and the standard alphabet are refused.
  static func base64URLDecode(_ text: Substring) -> Data? { Base64URL.decode(text) }

  /// base64url without padding.
  package static func base64URLEncode(_ data: Data) -> String { Base64URL.encode(data) }
}
