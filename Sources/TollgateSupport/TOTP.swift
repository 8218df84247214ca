import COpenSSL
import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): HMAC-SHA1 of the 30-second
/// step count under a shared secret, truncated to 6 digits — what authenticator apps show.
public enum TOTP {
  /// Seconds per step.
  public static let period: TimeInterval = 30
  /// Digits per code.
  public static let digits = 6

  /// The step `date` falls in.
  public static func step(at date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / period).rounded(.down)) }

  /// The code for `step` under `secret`, zero-padded.
  public static func code(secret: [UInt8], step: Int64, digits: Int = TOTP.digits) -> String {
    var counter = UInt64(bitPattern: step).bigEndian
    var out = [UInt8](repeating: 0, count: 20)
    var length: UInt32 = 0
    withUnsafeBytes(of: &counter) { raw in
      _ = HMAC(
        EVP_sha1(), secret, Int32(secret.count), raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &out, &length)
    }
    // Dynamic truncation (RFC 4226 §5.3).
    let offset = Int(out[19] & 0x0f)
    let value =
      (UInt32(out[offset] & 0x7f) << 24) | (UInt32(out[offset + 1]) << 16) | (UInt32(out[offset + 2]) << 8)
      | UInt32(out[offset + 3])
    var modulus: UInt32 = 1
    for _ in 0..<digits { modulus *= 10 }
    let text = String(value % modulus)
    return String(repeating: "0", count: digits - text.count) + text
  }

  /// A new random secret (160 bits, RFC 4226's recommendation).
  public static func newSecret() -> [UInt8] { Digest.randomBytes(20) }

  /// RFC 4648 base32 without padding: how authenticator apps take a secret.
  public static func base32(_ bytes: [UInt8]) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    var text = ""
    var buffer = 0
    var bits = 0
    for byte in bytes {
      buffer = (buffer << 8) | Int(byte)
      bits += 8
      while bits >= 5 {
        text.append(alphabet[(buffer >> (bits - 5)) & 31])
        bits -= 5
      }
    }
    if bits > 0 { text.append(alphabet[(buffer << (5 - bits)) & 31]) }
    return text
  }

  /// The bytes of a base32 text (case and spaces ignored), or nil.
  public static func bytes(base32 text: String) -> [UInt8]? {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    var bytes: [UInt8] = []
    var buffer = 0
    var bits = 0
    for character in text.uppercased() where character != " " && character != "=" {
      guard let value = alphabet.firstIndex(of: character) else { return nil }
      buffer = (buffer << 5) | value
      bits += 5
      if bits >= 8 {
        bytes.append(UInt8((buffer >> (bits - 8)) & 0xff))
        bits -= 8
      }
    }
    return bytes
  }
}
