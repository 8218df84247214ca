import COpenSSL
import Foundation

/// Verifies what the App Store signs — StoreKit 2 transactions, renewal infos and App Store
/// Server Notifications V2 — in the order Apple's own verifier library uses: structure,
/// ES256 only, exactly three certificates, the root byte-identical to the pinned root, the
/// intermediate's and leaf's Apple OIDs, the chain's signatures, every certificate valid at
/// the payload's `signedDate`, then the signature. Bundle id and environment are checked
/// against the app's settings by `verify(_:expecting:)`.
public struct SignedDataVerifier: Sendable {
  /// Apple marks its WWDR intermediates with this extension.
  package static let intermediateOID = "1.2.840.113635.100.6.2.1"
  /// Apple marks the App Store's signing leaf with this extension.
  package static let leafOID = "1.2.840.113635.100.6.11.1"

  let root: X509Certificate
  /// False when a root other than Apple Root CA - G3 was configured (tests and demos only).
  public let usesAppleRoot: Bool

  /// Trusts Apple Root CA - G3, built in and checked against its published fingerprint.
  public init() {
    guard let root = X509Certificate(der: AppleRootCertificate.der),
      root.fingerprint == AppleRootCertificate.fingerprint
    else { preconditionFailure("the built-in Apple Root CA - G3 does not match its fingerprint") }
    self.root = root
    self.usesAppleRoot = true
  }

  /// Trusts another root instead (`--app-store-root-ca`, for tests and demos): PEM or DER.
  public init(rootCertificate data: Data) throws(SignedDataError) {
    guard let root = X509Certificate(pemOrDER: data) else {
      throw .malformed("the root certificate file holds no PEM or DER certificate")
    }
    self.root = root
    self.usesAppleRoot = root.fingerprint == AppleRootCertificate.fingerprint
  }

  /// The SHA-256 fingerprint of the trusted root.
  public var rootFingerprint: String { root.fingerprint }

  /// Checks signature and chain; returns the payload's bytes and its `signedDate`.
  public func verify(_ jws: String) throws(SignedDataError) -> (payload: Data, signedDate: Date) {
    guard let parts = CompactJWS(jws) else {
      throw .malformed("not a JWS in compact serialization (three base64url parts)")
    }
    guard let header = (try? JSONSerialization.jsonObject(with: parts.header)) as? [String: Any] else {
      throw .malformed("the JWS header is not a JSON object")
    }
    guard let alg = header["alg"] as? String, alg == "ES256" else {
      throw .invalidSignature(
        "the JWS algorithm is \(header["alg"].map { "\($0)" } ?? "missing"); only ES256 is accepted")
    }
    guard let chain = header["x5c"] as? [String] else {
      throw .untrustedCertificate("the JWS header has no x5c certificate chain")
    }
    guard chain.count == 3 else {
      throw .untrustedCertificate("x5c holds \(chain.count) certificates; Apple signs with exactly three")
    }
    var certificates: [X509Certificate] = []
    for (index, encoded) in chain.enumerated() {
      guard let der = Data(base64Encoded: encoded), let certificate = X509Certificate(der: der) else {
        throw .malformed("x5c[\(index)] is not a base64 DER certificate")
      }
      certificates.append(certificate)
    }
    let (leaf, intermediate, root) = (certificates[0], certificates[1], certificates[2])
    guard root.der == self.root.der else {
      throw .untrustedCertificate("the chain's root is not the pinned Apple Root CA - G3")
    }
    guard intermediate.hasExtension(oid: Self.intermediateOID) else {
      throw .untrustedCertificate("the intermediate certificate lacks Apple's OID \(Self.intermediateOID)")
    }
    guard leaf.hasExtension(oid: Self.leafOID) else {
      throw .untrustedCertificate("the leaf certificate lacks Apple's OID \(Self.leafOID)")
    }
    guard intermediate.isSigned(by: root) else {
      throw .untrustedCertificate("the intermediate certificate is not signed by the root")
    }
    guard leaf.isSigned(by: intermediate) else {
      throw .untrustedCertificate("the leaf certificate is not signed by the intermediate")
    }
    guard let payload = (try? JSONSerialization.jsonObject(with: parts.payload)) as? [String: Any] else {
      throw .malformed("the JWS payload is not a JSON object")
    }
    guard let milliseconds = (payload["signedDate"] as? NSNumber)?.doubleValue else {
      throw .malformed("the JWS payload has no numeric signedDate")
    }
    let signedDate = Date(timeIntervalSince1970: milliseconds / 1000)
    for (name, certificate) in [("leaf", leaf), ("intermediate", intermediate), ("root", root)]
    where !certificate.isValid(at: signedDate) {
      throw .untrustedCertificate("the \(name) certificate is not valid at signedDate \(signedDate)")
    }
    try verifyPath(leaf: leaf, intermediate: intermediate, at: signedDate)
    guard Self.verifyES256(signature: parts.signature, over: parts.signingInput, key: leaf) else {
      throw .invalidSignature("the signature does not match the header and payload")
    }
    return (parts.payload, signedDate)
  }

  /// OpenSSL's own path validation at `signedDate`, with only the pinned root trusted:
  /// basic constraints, key usage and critical extensions as X.509 defines them.
  private func verifyPath(leaf: X509Certificate, intermediate: X509Certificate, at date: Date)
    throws(SignedDataError)
  {
    guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new(), let untrusted = tg_sk_X509_new_null()
    else { throw .untrustedCertificate("OpenSSL could not allocate a verification context") }
    defer {
      X509_STORE_CTX_free(context)
      X509_STORE_free(store)
      tg_sk_X509_free(untrusted)
    }
    X509_STORE_add_cert(store, root.pointer)
    tg_sk_X509_push(untrusted, intermediate.pointer)
    guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
      throw .untrustedCertificate("OpenSSL could not start path validation")
    }
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(context), time_t(date.timeIntervalSince1970))
    guard X509_verify_cert(context) == 1 else {
      let reason = String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
      throw .untrustedCertificate("the certificate chain does not validate: \(reason)")
    }
  }

  /// ES256: ECDSA over P-256 with SHA-256; JOSE sends the signature as raw `r || s`.
  static func verifyES256(signature: Data, over message: Data, key certificate: X509Certificate) -> Bool {
    guard let key = X509_get0_pubkey(certificate.pointer) else { return false }
    return verifyES256(signature: signature, over: message, publicKey: key)
  }

  /// ES256 with a key OpenSSL holds; false unless it is a P-256 EC key.
  static func verifyES256(signature: Data, over message: Data, publicKey key: OpaquePointer) -> Bool {
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

  static func curveName(of key: OpaquePointer) -> String? {
    var name = [CChar](repeating: 0, count: 64)
    var length = 0
    guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1, length < name.count else { return nil }
    return String(decoding: name[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `r || s` (32 bytes each) as the DER `ECDSA-Sig-Value` OpenSSL verifies.
  static func derSignature(rawRS: Data) -> Data? {
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
