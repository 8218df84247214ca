import COpenSSL
import Foundation

/// Why a key could not be read or used.
public struct ECKeyError: Error, CustomStringConvertible, Sendable {
  public let description: String
  init(_ description: String) { self.description = description }
}

/// A P-256 key held by OpenSSL: the private half signs ES256 (Apple Ads client secrets, the
/// StoreKit test signer), the public half verifies (the Apple Ads stand-in's token endpoint).
package final class ECKey: @unchecked Sendable {
  package let pointer: OpaquePointer

  init(owning pointer: OpaquePointer) { self.pointer = pointer }

  deinit { EVP_PKEY_free(pointer) }

  /// A new P-256 private key.
  package static func generateP256() throws -> ECKey {
    guard let key = tg_EVP_EC_gen_P256() else { throw ECKeyError("EC key generation failed") }
    return ECKey(owning: key)
  }

  /// Reads a PEM private key (`BEGIN EC PRIVATE KEY` or PKCS#8 `BEGIN PRIVATE KEY`); only P-256 is accepted.
  package convenience init(privatePEM pem: String) throws {
    // A key under a passphrase is refused rather than asked for (OpenSSL would prompt on a
    // terminal), with the command that removes the passphrase.
    if pem.contains("BEGIN ENCRYPTED PRIVATE KEY") || pem.contains("Proc-Type: 4,ENCRYPTED") {
      throw ECKeyError(
        "the key is encrypted with a passphrase; decrypt it first with `openssl pkey -in KEY.pem -out decrypted.pem` (it asks for the passphrase) and upload decrypted.pem"
      )
    }
    let key = try Self.read(pem) { PEM_read_bio_PrivateKey($0, nil, { _, _, _, _ in 0 }, nil) }
    self.init(owning: key)
    guard isP256 else { throw ECKeyError("the key is not an EC key on P-256 (prime256v1)") }
  }

  /// Reads a PEM public key (`BEGIN PUBLIC KEY`); only P-256 is accepted.
  package convenience init(publicPEM pem: String) throws {
    let key = try Self.read(pem) { PEM_read_bio_PUBKEY($0, nil, { _, _, _, _ in 0 }, nil) }
    self.init(owning: key)
    guard isP256 else { throw ECKeyError("the key is not an EC key on P-256 (prime256v1)") }
  }

  private static func read(_ pem: String, _ reader: (OpaquePointer) -> OpaquePointer?) throws -> OpaquePointer {
    guard let bio = BIO_new(BIO_s_mem()) else { throw ECKeyError("BIO_new failed") }
    defer { BIO_free(bio) }
    _ = pem.withCString { BIO_write(bio, $0, Int32(strlen($0))) }
    guard let key = reader(bio) else {
      ERR_clear_error()
      throw ECKeyError("not a PEM key")
    }
    return key
  }

  /// An EC key on P-256.
  var isP256: Bool {
    EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC && ECDSA.curveName(of: pointer) == "prime256v1"
  }

  /// The private key as PKCS#8 PEM.
  package var privatePEM: String { write { PEM_write_bio_PrivateKey($0, pointer, nil, nil, 0, nil, nil) } }

  /// The public half as `BEGIN PUBLIC KEY` PEM: what an operator uploads to Apple Ads.
  package var publicPEM: String { write { PEM_write_bio_PUBKEY($0, pointer) } }

  private func write(_ writer: (OpaquePointer) -> Int32) -> String {
    guard let bio = BIO_new(BIO_s_mem()) else { return "" }
    defer { BIO_free(bio) }
    guard writer(bio) == 1 else { return "" }
    var bytes: UnsafeMutablePointer<CChar>?
    let length = tg_BIO_get_mem_data(bio, &bytes)
    guard length > 0, let bytes else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
  }

  /// ES256 over `message`, as JOSE's raw `r || s` (64 bytes).
  package func signES256(_ message: Data) throws -> Data {
    guard let context = EVP_MD_CTX_new() else { throw ECKeyError("EVP_MD_CTX_new failed") }
    defer { EVP_MD_CTX_free(context) }
    guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
      throw ECKeyError("EVP_DigestSignInit failed (is this a private key?)")
    }
    var der = [UInt8](repeating: 0, count: 80)
    var length = der.count
    let status = message.withUnsafeBytes { msg in
      EVP_DigestSign(context, &der, &length, msg.bindMemory(to: UInt8.self).baseAddress, msg.count)
    }
    guard status == 1, let raw = ECDSA.rawSignature(der: Data(der[..<length])) else {
      throw ECKeyError("EVP_DigestSign failed")
    }
    return raw
  }

  /// Whether `signature` (raw `r || s`) is this key's ES256 signature over `message`.
  package func verifyES256(signature: Data, over message: Data) -> Bool {
    ECDSA.verifyES256(signature: signature, over: message, publicKey: pointer)
  }
}
