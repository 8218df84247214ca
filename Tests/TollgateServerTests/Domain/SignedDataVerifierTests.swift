import Foundation
import Testing
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Apple's real TEST notification verifies against the built-in root; every way of forging
/// signed data is refused with its own code.
@Suite struct SignedDataVerifierTests {
  static let realNotification = try! String(
    contentsOf: repositoryRoot.appendingPathComponent("Fixtures/appstore/test_notification.jws"), encoding: .utf8
  ).trimmingCharacters(in: .whitespacesAndNewlines)
  static let realSettings = AppStoreSettings(
    bundleId: "com.loki-project.loki-messenger", environments: ["Sandbox", "Production"])

  let verifier = SignedDataVerifier()

  /// The real notification's parts: header JSON, payload JSON, signature, `x5c`.
  static var realParts: (header: [String: Any], payload: [String: Any], segments: [String], x5c: [String]) {
    let segments = realNotification.split(separator: ".").map(String.init)
    let header =
      try! JSONSerialization.jsonObject(with: CompactJWS.base64URLDecode(segments[0][...])!) as! [String: Any]
    let payload =
      try! JSONSerialization.jsonObject(with: CompactJWS.base64URLDecode(segments[1][...])!) as! [String: Any]
    return (header, payload, segments, header["x5c"] as! [String])
  }

  static func encode(_ object: [String: Any]) -> String {
    CompactJWS.base64URLEncode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
  }

  func refusal(_ body: () throws -> Void) -> SignedDataError? {
    do {
      try body()
      return nil
    } catch {
      return error as? SignedDataError
    }
  }

  @Test func appleRealTestNotificationVerifiesThoughItsLeafHasExpired() throws {
    let notification = try verifier.notification(Self.realNotification, for: Self.realSettings)
    #expect(notification.notificationType == "TEST")
    #expect(notification.notificationUUID == "592751ef-c1b8-47fc-929e-d62dee66df4c")
    #expect(notification.data?.environment == "Sandbox")
    #expect(verifier.usesAppleRoot)
    #expect(verifier.rootFingerprint == AppleRootCertificate.fingerprint)
  }

  @Test func editedPayloadIsRefused() {
    var (_, payload, segments, _) = Self.realParts
    payload["notificationType"] = "REFUND"
    let forged = [segments[0], Self.encode(payload), segments[2]].joined(separator: ".")
    #expect(refusal { _ = try verifier.notification(forged, for: Self.realSettings) }?.code == "invalid_signature")
  }

  @Test func signatureTransplantedOntoAnotherPayloadIsRefused() throws {
    // A payload signed by a test chain, carrying Apple's real header and signature.
    let signer = try StoreKitSigner()
    let other = try signer.sign(json: [
      "notificationType": "TEST", "notificationUUID": "x", "signedDate": 1_757_035_472_686,
    ])
    let segments = Self.realParts.segments
    let forged = [segments[0], other.split(separator: ".")[1].description, segments[2]].joined(separator: ".")
    #expect(refusal { _ = try verifier.verify(forged) }?.code == "invalid_signature")
  }

  @Test func ownLeafBesideApplesRealIntermediateAndRootIsRefused() throws {
    let signer = try StoreKitSigner()
    let x5c = [signer.x5c[0], Self.realParts.x5c[1], Self.realParts.x5c[2]]
    var payload = Self.realParts.payload
    payload["notificationUUID"] = UUID().uuidString
    let forged = try signer.sign(payload: JSONSerialization.data(withJSONObject: payload), x5c: x5c)
    let error = refusal { _ = try verifier.verify(forged) }
    #expect(error?.code == "untrusted_certificate")
    #expect(error?.message.contains("not signed by the intermediate") == true)
  }

  @Test func ownChainWithApplesNamesAndOIDsIsRefused() throws {
    let signer = try StoreKitSigner(appleNames: true)
    let forged = try signer.sign(json: Self.realParts.payload)
    let error = refusal { _ = try verifier.verify(forged) }
    #expect(error?.code == "untrusted_certificate")
    #expect(error?.message.contains("pinned Apple Root CA - G3") == true)
    // The same JWS verifies once its own root is trusted: only the root made the difference.
    let testVerifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    #expect(!testVerifier.usesAppleRoot)
    #expect(try testVerifier.notification(forged, for: Self.realSettings).notificationType == "TEST")
  }

  @Test func algNoneIsRefused() {
    var (header, _, segments, _) = Self.realParts
    header["alg"] = "none"
    let forged = [Self.encode(header), segments[1], ""].joined(separator: ".")
    #expect(refusal { _ = try verifier.verify(forged) }?.code == "malformed_jws")
    let withSignature = [Self.encode(header), segments[1], segments[2]].joined(separator: ".")
    #expect(refusal { _ = try verifier.verify(withSignature) }?.code == "invalid_signature")
  }

  @Test func fewerThanThreeCertificatesAreRefused() {
    var (header, _, segments, x5c) = Self.realParts
    header["x5c"] = Array(x5c.prefix(2))
    let forged = [Self.encode(header), segments[1], segments[2]].joined(separator: ".")
    let error = refusal { _ = try verifier.verify(forged) }
    #expect(error?.code == "untrusted_certificate")
    #expect(error?.message.contains("2 certificates") == true)
  }

  @Test func wrongBundleIdIsRefused() {
    let settings = AppStoreSettings(bundleId: "com.example.other", environments: ["Sandbox"])
    #expect(refusal { _ = try verifier.notification(Self.realNotification, for: settings) }?.code == "bundle_mismatch")
  }

  @Test func environmentNotAllowedIsRefused() {
    let settings = AppStoreSettings(bundleId: Self.realSettings.bundleId, environments: ["Production"])
    #expect(
      refusal { _ = try verifier.notification(Self.realNotification, for: settings) }?.code
        == "environment_not_allowed")
  }

  @Test func certificateNotValidAtSignedDateIsRefused() throws {
    // Apple's real chain, with a signedDate after the leaf expired (the payload is re-signed by
    // nobody, so the date check must come before the signature check to be observed).
    var payload = Self.realParts.payload
    payload["signedDate"] = 1_800_000_000_000
    let segments = Self.realParts.segments
    let forged = [segments[0], Self.encode(payload), segments[2]].joined(separator: ".")
    let error = refusal { _ = try verifier.verify(forged) }
    #expect(error?.code == "untrusted_certificate")
    #expect(error?.message.contains("not valid at signedDate") == true)
  }

  @Test func aRememberedChainStillChecksEachDateAndSignature() throws {
    // The real notification verifies, so its chain is remembered; the same chain then carries
    // a payload dated after the leaf expired, and one edited, and a chain differing in one byte.
    _ = try verifier.verify(Self.realNotification)
    let (header, payload, segments, x5c) = Self.realParts
    var late = payload
    late["signedDate"] = 1_800_000_000_000
    let expired = refusal {
      _ = try verifier.verify([segments[0], Self.encode(late), segments[2]].joined(separator: "."))
    }
    #expect(expired?.code == "untrusted_certificate" && expired?.message.contains("not valid at signedDate") == true)
    var edited = payload
    edited["notificationType"] = "REFUND"
    let forged = [segments[0], Self.encode(edited), segments[2]].joined(separator: ".")
    #expect(refusal { _ = try verifier.verify(forged) }?.code == "invalid_signature")
    var otherHeader = header
    var chain = x5c
    chain[1] = String(chain[1].dropLast(4)) + "AAA="
    otherHeader["x5c"] = chain
    let otherChain = [Self.encode(otherHeader), segments[1], segments[2]].joined(separator: ".")
    #expect(refusal { _ = try verifier.verify(otherChain) } != nil, "a chain not byte-identical is checked afresh")
    #expect(verifier.verifiedChains.lookup(chain) == nil && verifier.verifiedChains.lookup(x5c) != nil)
  }

  @Test func garbageIsMalformed() {
    for text in ["", "a.b", "not.a.jws!", "e30.e30.e30.e30"] {
      #expect(refusal { _ = try verifier.verify(text) }?.code == "malformed_jws", "\(text)")
    }
  }

  @Test func signerTransactionsRoundTripWithTheirRoot() throws {
    let signer = try StoreKitSigner(appleNames: false)
    let testVerifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    let jws = try signer.sign(json: [
      "transactionId": "1000", "originalTransactionId": "1000", "bundleId": "com.example.app",
      "productId": "pro_monthly", "purchaseDate": 1_700_000_000_000, "type": TransactionPayload.autoRenewable,
      "environment": "Sandbox", "expiresDate": 1_702_592_000_000, "price": 9_990, "currency": "USD",
    ])
    let settings = AppStoreSettings(bundleId: "com.example.app", environments: ["Sandbox"])
    let transaction = try testVerifier.transaction(jws, for: settings)
    #expect(transaction.productId == "pro_monthly")
    #expect(transaction.price == 9_990)
    // And a saved chain signs the same way after a reload.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storekit-\(UUID())")
    defer { try? FileManager.default.removeItem(at: directory) }
    try signer.save(to: directory)
    let reloaded = try StoreKitSigner(directory: directory)
    let again = try reloaded.sign(json: [
      "transactionId": "1001", "originalTransactionId": "1000",
      "bundleId": "com.example.app", "productId": "pro_monthly", "purchaseDate": 1, "type": "Consumable",
      "environment": "Sandbox",
    ])
    #expect(try testVerifier.transaction(again, for: settings).transactionId == "1001")
  }
}
