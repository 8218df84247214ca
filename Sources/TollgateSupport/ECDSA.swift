import COpenSSL
import Foundation

/// ECDSA on P-256 as JOSE writes it (ES256: a raw `r || s` signature), over OpenSSL: what
/// verifies Apple's signed data and signs client secrets.
package enum ECDSA {
  /// ES256 with a key OpenSSL holds; false unless it is a P-256 EC key.
  package static func verifyES256(signature: Data, over message: Data, publicKey key: OpaquePointer) -> Bool {
    guard signature.count == 64, EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, curveName(of: key) == "prime256v1",
      let der = derSignature(rawRS: signature), let context = EVP_MD_CTX_new()
    else { return false }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
    return der.withUnsafeBytes { sig in
      message.withUnsafeBytes { msg in
        EVP_DigestVerify(
          context, sig.bindMemory(to: UInt8.self).baseAddress, sig.count,
          msg.bindMemory(to: UInt8.self).baseAddress, msg.count) == 1
      }
    }
  }

  package static func curveName(of key: OpaquePointer) -> String? {
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1, length < name.count else { return nil }
    return String(decoding: name[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `r || s` (32 bytes each) as the DER `ECDSA-Sig-Value` OpenSSL verifies.
  package static func derSignature(rawRS: Data) -> Data? {
    guard let signature = ECDSA_SIG_new() else { return nil }
    defer { ECDSA_SIG_free(signature) }
    let bytes = [UInt8](rawRS)
    guard let r = BN_bin2bn(bytes, 32, nil), let s = BN_bin2bn(Array(bytes[32...]), 32, nil) else { return nil }
    guard ECDSA_SIG_set0(signature, r, s) == 1 else {
      BN_free(r)
      BN_free(s)
      return nil
    }
    var out: UnsafeMutablePointer<UInt8>?
    let length = i2d_ECDSA_SIG(signature, &out)
    defer { tg_OPENSSL_free(out) }
    guard length > 0, let out else { return nil }
    return Data(bytes: out, count: Int(length))
  }

  /// `r || s` from a DER `ECDSA-Sig-Value` (what OpenSSL's signer returns).
  package static func rawSignature(der: Data) -> Data? {
    der.withUnsafeBytes { raw -> Data? in
      var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
      guard let signature = d2i_ECDSA_SIG(nil, &cursor, raw.count) else { return nil }
      defer { ECDSA_SIG_free(signature) }
      var r: OpaquePointer?
      var s: OpaquePointer?
      ECDSA_SIG_get0(signature, &r, &s)
      var out = [UInt8](repeating: 0, count: 64)
      guard BN_bn2binpad(r, &out, 32) == 32,
        out.withUnsafeMutableBufferPointer({ BN_bn2binpad(s, $0.baseAddress! + 32, 32) }) == 32
      else { return nil }
      return Data(out)
    }
  }
}
