import Foundation
import TollgateSupport

/// The second factor's rules: a TOTP code is accepted in its own 30-second step or one step
/// either side (clocks drift), and never for a step at or before the last one used (a code seen
/// over a shoulder or replayed is refused); recovery codes are 10 single-use random codes,
/// stored hashed.
public enum TwoFactor {
  /// Steps accepted either side of now.
  public static let window: Int64 = 1
  /// Recovery codes made at set-up.
  public static let recoveryCodeCount = 10

  /// The step `code` belongs to, if it matches one within the window after `lastStep`.
  public static func acceptedStep(code: String, secret: [UInt8], now: Date, lastStep: Int64?) -> Int64? {
    let digits = code.filter { !$0.isWhitespace }
    guard digits.count == TOTP.digits, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
    let current = TOTP.step(at: now)
    for step in (current - window)...(current + window) where step > (lastStep ?? Int64.min) {
      if TOTP.code(secret: secret, step: step) == digits { return step }
    }
    return nil
  }

  /// Whether `code` looks like a recovery code rather than a TOTP code.
  public static func isRecoveryCode(_ code: String) -> Bool { code.contains("-") }

  /// A recovery code as stored: its SHA-256 over the normalised text (lower case, no spaces).
  public static func recoveryHash(_ code: String) -> String {
    Digest.sha256Hex(code.lowercased().filter { !$0.isWhitespace })
  }

  /// New recovery codes: `xxxxx-xxxxx`, 50 random bits each.
  public static func newRecoveryCodes() -> [String] {
    let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
    return (0..<recoveryCodeCount).map { _ in
      let picked = Digest.randomBytes(10).map { alphabet[Int($0) % alphabet.count] }
      return String(picked[0..<5]) + "-" + String(picked[5..<10])
    }
  }

  /// The `otpauth://` URI authenticator apps read from the QR code.
  public static func uri(secret: [UInt8], account: String, issuer: String) -> String {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~@"))
    let label = (issuer + ":" + account).addingPercentEncoding(withAllowedCharacters: allowed.union([":"])) ?? account
    let issuerParameter = issuer.addingPercentEncoding(withAllowedCharacters: allowed) ?? issuer
    return
      "otpauth://totp/\(label)?secret=\(TOTP.base32(secret))&issuer=\(issuerParameter)&algorithm=SHA1&digits=6&period=30"
  }
}
