import COpenSSL
import Foundation
import Synchronization
import TollgateSupport

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
  /// Chains already verified (a busy app sees the same few for months).
  let verifiedChains = VerifiedChains()
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
    guard let payload = (try? JSONSerialization.jsonObject(with: parts.payload)) as? [String: Any] else {
      throw .malformed("the JWS payload is not a JSON object")
    }
    guard let milliseconds = (payload["signedDate"] as? NSNumber)?.doubleValue else {
      throw .malformed("the JWS payload has no numeric signedDate")
    }
    let signedDate = Date(timeIntervalSince1970: milliseconds / 1000)
    let leaf = try verifiedLeaf(chain, at: signedDate)
    guard Self.verifyES256(signature: parts.signature, over: parts.signingInput, key: leaf) else {

      throw .invalidSignature("the signature does not match the header and payload")
    }
    return (parts.payload, signedDate)
  }

  /// The leaf of an x5c chain checked as Apple's verifier does, at `signedDate`. A chain that
  /// verified once is remembered by its exact text: its signatures, OIDs and path do not change,
  /// so only each certificate's validity at the new `signedDate` is checked again (the one
  /// part of OpenSSL's path validation that depends on the date, with no revocation lists).
  private func verifiedLeaf(_ chain: [String], at signedDate: Date) throws(SignedDataError) -> X509Certificate {
    if let known = verifiedChains.lookup(chain) {
      for (name, certificate) in zip(["leaf", "intermediate", "root"], known) where !certificate.isValid(at: signedDate)
      {
        throw .untrustedCertificate("the \(name) certificate is not valid at signedDate \(signedDate)")
      }
      return known[0]
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
    for (name, certificate) in [("leaf", leaf), ("intermediate", intermediate), ("root", root)]
    where !certificate.isValid(at: signedDate) {
      throw .untrustedCertificate("the \(name) certificate is not valid at signedDate \(signedDate)")
    }
    try verifyPath(leaf: leaf, intermediate: intermediate, at: signedDate)
    verifiedChains.remember(chain, certificates)
    return leaf
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
    return ECDSA.verifyES256(signature: signature, over: message, publicKey: key)
  }
}

/// x5c chains that passed every check, by their exact text (a few; forgotten at once when full).
final class VerifiedChains: Sendable {
  private let chains = Mutex<[[String]: [X509Certificate]]>([:])

  func lookup(_ chain: [String]) -> [X509Certificate]? { chains.withLock { $0[chain] } }

  func remember(_ chain: [String], _ certificates: [X509Certificate]) {
    chains.withLock { known in
      if known.count >= 64 { known.removeAll() }
      known[chain] = certificates
    }
  }
}
