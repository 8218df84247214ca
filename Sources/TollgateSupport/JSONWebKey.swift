import COpenSSL
import Foundation

/// Why a JSON Web Key could not be used.
package struct JSONWebKeyError: Error, CustomStringConvertible, Sendable {
  package let description: String
  init(_ description: String) { self.description = description }
}

/// A public key from a provider's JSON Web Key Set (RFC 7517), held by OpenSSL: RSA (`n`, `e`,
/// at least 2048 bits) verifies RS256, EC on P-256 (`x`, `y`) verifies ES256 (RFC 7518 §3).
package final class JSONWebKey: @unchecked Sendable {
  /// One key as a key set lists it.
  package struct Fields: Codable, Sendable {
    package var kty: String
    package var kid: String?
    package var use: String?
    package var alg: String?
    package var n: String?
    package var e: String?
    package var crv: String?
    package var x: String?
    package var y: String?

    /// Every field.
    package init(
      kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil, e: String? = nil,
      crv: String? = nil, x: String? = nil, y: String? = nil
    ) {
      (self.kty, self.kid, self.use, self.alg, self.n, self.e) = (kty, kid, use, alg, n, e)
      (self.crv, self.x, self.y) = (crv, x, y)
    }
  }

  /// A key set (`{"keys": [...]}`).
  package struct Set: Codable, Sendable {
    package var keys: [Fields]
    /// The keys.
    package init(keys: [Fields]) { self.keys = keys }
  }

  /// `kid`: which key a token's header names.
  package let keyId: String?
  /// The algorithm this key verifies: `RS256` or `ES256`.
  package let algorithm: String
  private let pointer: OpaquePointer

  deinit { EVP_PKEY_free(pointer) }

  /// The key `fields` describe; refuses private-key sets' extra material silently (only the
  /// public parts are read), keys for encryption (`use: enc`), small RSA moduli and curves other
  /// than P-256.
  package init(_ fields: Fields) throws {
    if let use = fields.use, use != "sig" { throw JSONWebKeyError("key \(fields.kid ?? "?") is for \(use), not sig") }
    keyId = fields.kid
    switch fields.kty {
    case "RSA":
      guard fields.alg == nil || fields.alg == "RS256" else {
        throw JSONWebKeyError("RSA key \(fields.kid ?? "?") is for \(fields.alg ?? ""), not RS256")
      }
      guard let n = fields.n.flatMap({ Base64URL.decode(Substring($0)) }),
        let e = fields.e.flatMap({ Base64URL.decode(Substring($0)) })
      else { throw JSONWebKeyError("RSA key \(fields.kid ?? "?") lacks n or e") }
      pointer = try Self.rsa(modulus: n, exponent: e)
      algorithm = "RS256"
      guard EVP_PKEY_get_bits(pointer) >= 2048 else {
        throw JSONWebKeyError("RSA key \(fields.kid ?? "?") has fewer than 2048 bits")
      }
    case "EC":
      guard fields.crv == "P-256", fields.alg == nil || fields.alg == "ES256" else {
        throw JSONWebKeyError("EC key \(fields.kid ?? "?") is not P-256 / ES256")
      }
      guard let x = fields.x.flatMap({ Base64URL.decode(Substring($0)) }),
        let y = fields.y.flatMap({ Base64URL.decode(Substring($0)) }), x.count == 32, y.count == 32
      else { throw JSONWebKeyError("EC key \(fields.kid ?? "?") lacks a 32-byte x or y") }
      pointer = try Self.ecP256(point: Data([4]) + x + y)
      algorithm = "ES256"
    default:
      throw JSONWebKeyError("key type \(fields.kty) is not RSA or EC")
    }
  }

  /// Whether `signature` is this key's `algorithm` signature over `message`; false for any
  /// other algorithm.
  package func verify(algorithm stated: String, signature: Data, over message: Data) -> Bool {
    guard stated == algorithm else { return false }
    if algorithm == "ES256" { return ECDSA.verifyES256(signature: signature, over: message, publicKey: pointer) }
    guard let context = EVP_MD_CTX_new() else { return false }
    defer { EVP_MD_CTX_free(context) }
    // RSASSA-PKCS1-v1_5 with SHA-256: OpenSSL's default padding for an RSA key.
    guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
    let verified = signature.withUnsafeBytes { sig in
      message.withUnsafeBytes { msg in
        EVP_DigestVerify(
          context, sig.bindMemory(to: UInt8.self).baseAddress, sig.count,
          msg.bindMemory(to: UInt8.self).baseAddress, msg.count) == 1
      }
    }
    ERR_clear_error()
    return verified
  }

  private static func rsa(modulus: Data, exponent: Data) throws -> OpaquePointer {
    let key = modulus.withUnsafeBytes { n in
      exponent.withUnsafeBytes { e in
        tg_rsa_public_key(
          n.bindMemory(to: UInt8.self).baseAddress, n.count, e.bindMemory(to: UInt8.self).baseAddress, e.count)
      }
    }
    guard let key else {
      ERR_clear_error()
      throw JSONWebKeyError("OpenSSL refused the RSA key (not a valid public key)")
    }
    return key
  }

  private static func ecP256(point: Data) throws -> OpaquePointer {
    let key = point.withUnsafeBytes { tg_p256_public_key($0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
    guard let key else {
      ERR_clear_error()
      throw JSONWebKeyError("OpenSSL refused the EC key (not a point on P-256)")
    }
    return key
  }
}
