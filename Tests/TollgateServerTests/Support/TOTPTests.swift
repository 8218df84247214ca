import Foundation
import Testing

@testable import TollgateDomain
@testable import TollgateSupport

@Suite("TOTP (RFC 6238)")
struct TOTPTests {
  /// RFC 6238 Appendix B, SHA-1, the 8-digit codes (their last 6 digits are the 6-digit code).
  @Test("the RFC's test vectors")
  func vectors() {
    let secret = Array("12345678901234567890".utf8)
    let cases: [(TimeInterval, String)] = [
      (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
      (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
    ]
    for (time, expected) in cases {
      let step = TOTP.step(at: Date(timeIntervalSince1970: time))
      #expect(TOTP.code(secret: secret, step: step, digits: 8) == expected, "T=\(time)")
      #expect(TOTP.code(secret: secret, step: step) == String(expected.suffix(6)), "T=\(time)")
    }
  }

  @Test("base32 both ways (RFC 4648's examples)")
  func base32() {
    #expect(TOTP.base32(Array("foobar".utf8)) == "MZXW6YTBOI")
    #expect(TOTP.bytes(base32: "mzxw6ytboi") == Array("foobar".utf8))
    #expect(TOTP.bytes(base32: "MZXW 6YTB OI======") == Array("foobar".utf8))
    #expect(TOTP.bytes(base32: "not base32!") == nil)
    let secret = TOTP.newSecret()
    #expect(TOTP.bytes(base32: TOTP.base32(secret)) == secret)
  }

  @Test("a code is accepted one step either side, never for a step already used, and only as 6 digits")
  func window() {
    let secret = Array("12345678901234567890".utf8)
    let now = Date(timeIntervalSince1970: 1_800_000_015)
    let step = TOTP.step(at: now)
    for offset in [-1, 0, 1] as [Int64] {
      let code = TOTP.code(secret: secret, step: step + offset)
      #expect(TwoFactor.acceptedStep(code: code, secret: secret, now: now, lastStep: nil) == step + offset)
    }
    #expect(
      TwoFactor.acceptedStep(code: TOTP.code(secret: secret, step: step - 2), secret: secret, now: now, lastStep: nil)
        == nil)
    #expect(
      TwoFactor.acceptedStep(code: TOTP.code(secret: secret, step: step + 2), secret: secret, now: now, lastStep: nil)
        == nil)
    // Replayed: its step was used already.
    let code = TOTP.code(secret: secret, step: step)
    #expect(TwoFactor.acceptedStep(code: code, secret: secret, now: now, lastStep: step) == nil)
    #expect(TwoFactor.acceptedStep(code: "12345", secret: secret, now: now, lastStep: nil) == nil)
    #expect(TwoFactor.acceptedStep(code: "１２３４５６", secret: secret, now: now, lastStep: nil) == nil)
    let uri = TwoFactor.uri(secret: secret, account: "ana@example.com", issuer: "Tollgate")
    #expect(
      uri.hasPrefix("otpauth://totp/Tollgate:ana@example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Tollgate"))
  }
}
