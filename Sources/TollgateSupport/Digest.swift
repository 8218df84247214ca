import COpenSSL
import Foundation

/// SHA-256 and secure random bytes from OpenSSL's libcrypto.
public enum Digest {
  /// SHA-256 of `data`, as 32 bytes.
  public static func sha256(_ data: Data) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
    data.withUnsafeBytes { bytes in
      _ = SHA256(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &out)
    }
    return out
  }

  /// SHA-256 of a string's UTF-8 bytes, as lower-case hex.
  public static func sha256Hex(_ text: String) -> String {
    hex(sha256(Data(text.utf8)))
  }

  /// `count` bytes from libcrypto's CSPRNG.
  public static func randomBytes(_ count: Int) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    guard RAND_bytes(&out, Int32(count)) == 1 else {
      // libcrypto only fails here when the OS has no entropy source at all.
      preconditionFailure("RAND_bytes failed: no entropy")
    }
    return out
  }

  /// Lower-case hex.
  public static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
