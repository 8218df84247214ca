import COpenSSL
import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// Signs StoreKit 2 transactions, renewal infos and App Store Server Notifications exactly
/// as Apple shapes them (ES256 JWS, `x5c` of leaf, intermediate and root carrying Apple's
/// OIDs), with a local chain instead of Apple's. For tests and demos: a server trusts it
/// only when started with `--app-store-root-ca` pointing at this chain's root.
public final class StoreKitSigner: @unchecked Sendable {
  /// The chain's root certificate (PEM): what `--app-store-root-ca` takes.
  public let rootPEM: String
  let leafKey: ECKey
  let chain: [X509Certificate]

  /// A new chain. `appleNames` gives the certificates Apple's subject names (the forgery a
  /// verifier must refuse on the root's bytes alone).
  public init(appleNames: Bool = true, validFrom: Date = Date(timeIntervalSince1970: 1_600_000_000)) throws {
    let until = validFrom.addingTimeInterval(60 * 60 * 24 * 365 * 30)
    let rootKey = try ECKey.generateP256()
    let intermediateKey = try ECKey.generateP256()
    let leafKey = try ECKey.generateP256()
    let names =
      appleNames
      ? (
        "Apple Root CA - G3", "Apple Worldwide Developer Relations Certification Authority",
        "Prod ECC Mac App Store and iTunes Store Receipt Signing"
      )
      : ("Tollgate StoreKit Test Root", "Tollgate StoreKit Test Intermediate", "Tollgate StoreKit Test Signing")
    let root = try Self.certificate(
      subject: names.0, issuer: nil, issuerKey: rootKey, key: rootKey, serial: 1, from: validFrom, until: until,
      authority: true, oid: nil)
    let intermediate = try Self.certificate(
      subject: names.1, issuer: root, issuerKey: rootKey, key: intermediateKey, serial: 2, from: validFrom,
      until: until, authority: true, oid: SignedDataVerifier.intermediateOID)
    let leaf = try Self.certificate(
      subject: names.2, issuer: intermediate, issuerKey: intermediateKey, key: leafKey, serial: 3, from: validFrom,
      until: until, authority: false, oid: SignedDataVerifier.leafOID)
    self.leafKey = leafKey
    self.chain = [leaf, intermediate, root]
    self.rootPEM = Self.pem(root.der)
    self.keysPEM = [rootKey.privatePEM, intermediateKey.privatePEM, leafKey.privatePEM]
  }

  /// The chain's private keys (root, intermediate, leaf), PEM: `save(to:)` writes them.
  let keysPEM: [String]

  /// Loads a chain written by `save(to:)`.
  public init(directory: URL) throws {
    let leafKey = try ECKey(
      privatePEM: try String(contentsOf: directory.appendingPathComponent("leaf-key.pem"), encoding: .utf8))
    var chain: [X509Certificate] = []
    for name in ["leaf", "intermediate", "root"] {
      let data = try Data(contentsOf: directory.appendingPathComponent("\(name).pem"))
      guard let certificate = X509Certificate(pemOrDER: data) else {
        throw StoreKitSignerError("\(name).pem in \(directory.path) is not a certificate")
      }
      chain.append(certificate)
    }
    self.leafKey = leafKey
    self.chain = chain
    self.rootPEM = Self.pem(chain[2].der)
    self.keysPEM = []
  }

  /// Writes the chain (certificates and the leaf's key) to `directory`.
  public func save(to directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, certificate) in zip(["leaf", "intermediate", "root"], chain) {
      try Self.pem(certificate.der).write(
        to: directory.appendingPathComponent("\(name).pem"), atomically: true, encoding: .utf8)
    }
    try leafKey.privatePEM.write(
      to: directory.appendingPathComponent("leaf-key.pem"), atomically: true, encoding: .utf8)
  }

  /// The chain as `x5c` (standard base64 DER: leaf, intermediate, root).
  public var x5c: [String] { chain.map { $0.der.base64EncodedString() } }

  /// Signs a JSON payload as a compact JWS with this chain.
  public func sign(payload: Data) throws -> String {
    try sign(payload: payload, x5c: x5c)
  }

  /// Signs with any `x5c` (forgery tests put their own leaf beside Apple's certificates).
  public func sign(payload: Data, x5c: [String], alg: String = "ES256") throws -> String {
    let header = try JSONSerialization.data(withJSONObject: ["alg": alg, "x5c": x5c], options: [.sortedKeys])
    let input = CompactJWS.base64URLEncode(header) + "." + CompactJWS.base64URLEncode(payload)
    let signature = try leafKey.signES256(Data(input.utf8))
    return input + "." + CompactJWS.base64URLEncode(signature)
  }

  /// Signs a payload object; nested `signedTransactionInfo`/`signedRenewalInfo` objects
  /// under `data` are signed first, and a missing `signedDate` is set to `now`.
  public func sign(json object: [String: Any], now: Date = Date()) throws -> String {
    var object = object
    let milliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded())
    if object["signedDate"] == nil { object["signedDate"] = milliseconds }
    if var data = object["data"] as? [String: Any] {
      for key in ["signedTransactionInfo", "signedRenewalInfo"] {
        if let nested = data[key] as? [String: Any] { data[key] = try sign(json: nested, now: now) }
      }
      object["data"] = data
    }
    return try sign(payload: JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
  }

  static func pem(_ der: Data) -> String {
    let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
  }

  static func certificate(
    subject: String, issuer: X509Certificate?, issuerKey: ECKey, key: ECKey, serial: Int, from: Date,
    until: Date, authority: Bool, oid: String?
  ) throws -> X509Certificate {
    guard let x509 = X509_new() else { throw StoreKitSignerError("X509_new failed") }
    var handedOver = false
    defer { if !handedOver { X509_free(x509) } }
    X509_set_version(x509, 2)
    ASN1_INTEGER_set(X509_get_serialNumber(x509), serial)
    var start = time_t(from.timeIntervalSince1970)
    var end = time_t(until.timeIntervalSince1970)
    X509_time_adj_ex(X509_getm_notBefore(x509), 0, 0, &start)
    X509_time_adj_ex(X509_getm_notAfter(x509), 0, 0, &end)
    guard let name = X509_NAME_new() else { throw StoreKitSignerError("X509_NAME_new failed") }
    defer { X509_NAME_free(name) }
    for (field, value) in [("CN", subject), ("OU", "Tollgate StoreKit test chain"), ("O", "Tollgate"), ("C", "US")] {
      X509_NAME_add_entry_by_txt(name, field, MBSTRING_ASC, value, -1, -1, 0)
    }
    X509_set_subject_name(x509, name)
    X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.pointer) } ?? name)
    X509_set_pubkey(x509, key.pointer)
    let constraints = authority ? "critical,CA:TRUE" : "critical,CA:FALSE"
    let usage = authority ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature"
    for (nid, value) in [(NID_basic_constraints, constraints), (NID_key_usage, usage)] {
      guard let ext = X509V3_EXT_conf_nid(nil, nil, nid, value) else { throw StoreKitSignerError("extension \(value)") }
      X509_add_ext(x509, ext, -1)
      X509_EXTENSION_free(ext)
    }
    if let oid {
      // Apple's marker extensions hold an ASN.1 NULL.
      guard let object = OBJ_txt2obj(oid, 1), let octets = ASN1_OCTET_STRING_new() else {
        throw StoreKitSignerError("OID \(oid)")
      }
      defer {
        ASN1_OBJECT_free(object)
        ASN1_OCTET_STRING_free(octets)
      }
      ASN1_OCTET_STRING_set(octets, [0x05, 0x00], 2)
      guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, octets) else {
        throw StoreKitSignerError("OID \(oid)")
      }
      X509_add_ext(x509, ext, -1)
      X509_EXTENSION_free(ext)
    }
    guard X509_sign(x509, issuerKey.pointer, EVP_sha256()) > 0 else { throw StoreKitSignerError("X509_sign failed") }
    handedOver = true
    return X509Certificate(owning: x509)
  }
}

/// Why the StoreKit test signer failed.
public struct StoreKitSignerError: Error, CustomStringConvertible {
  public let description: String
  init(_ description: String) { self.description = description }
}
