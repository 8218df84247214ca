import COpenSSL
import Foundation
import TollgateSupport

/// One X.509 certificate held by OpenSSL, freed with this object.
package final class X509Certificate: @unchecked Sendable {
  /// OpenSSL's `X509 *`; never mutated after parsing (hence the unchecked Sendable).
  package let pointer: OpaquePointer
  /// The DER bytes it was parsed from.
  package let der: Data

  /// Parses DER; nil when OpenSSL cannot.
  package init?(der: Data) {
    var parsed: OpaquePointer?
    der.withUnsafeBytes { raw in
      var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
      parsed = d2i_X509(nil, &cursor, raw.count)
    }
    guard let parsed else { return nil }
    self.pointer = parsed
    self.der = der
  }

  /// Takes ownership of an `X509 *` and records its DER encoding.
  package init(owning pointer: OpaquePointer) {
    self.pointer = pointer
    var out: UnsafeMutablePointer<UInt8>?
    let length = i2d_X509(pointer, &out)
    self.der = length > 0 && out != nil ? Data(bytes: out!, count: Int(length)) : Data()
    tg_OPENSSL_free(out)
  }

  /// Parses PEM (the first certificate) or, failing that, DER.
  package convenience init?(pemOrDER data: Data) {
    if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") {
      let body = text.components(separatedBy: "-----BEGIN CERTIFICATE-----")[1]
        .components(separatedBy: "-----END CERTIFICATE-----")[0]
        .filter { !$0.isWhitespace }
      guard let der = Data(base64Encoded: body) else { return nil }
      self.init(der: der)
    } else {
      self.init(der: data)
    }
  }

  deinit { X509_free(pointer) }

  /// Whether the certificate carries an extension with this dotted OID.
  func hasExtension(oid: String) -> Bool {
    guard let object = OBJ_txt2obj(oid, 1) else { return false }
    defer { ASN1_OBJECT_free(object) }
    return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
  }

  /// Whether `issuer`'s public key verifies this certificate's signature.
  func isSigned(by issuer: X509Certificate) -> Bool {
    guard let key = X509_get0_pubkey(issuer.pointer) else { return false }
    return X509_verify(pointer, key) == 1
  }

  /// Whether `date` lies within notBefore … notAfter.
  func isValid(at date: Date) -> Bool {
    var time = time_t(date.timeIntervalSince1970.rounded(.down))
    // X509_cmp_time: -1 when the certificate's time is earlier than `time`, 1 when later, 0 on error.
    return X509_cmp_time(X509_get0_notBefore(pointer), &time) == -1
      && X509_cmp_time(X509_get0_notAfter(pointer), &time) == 1
  }

  /// SHA-256 of the DER bytes, lower-case hex.
  var fingerprint: String { Digest.hex(Digest.sha256(der)) }
}
