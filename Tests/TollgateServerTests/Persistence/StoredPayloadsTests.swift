import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgatePersistence

/// A payload remembered as it is stored must be what decoding the stored text gives, or the
/// unit that stored it would count another transaction than a rebuild reads.
@Suite("Stored payloads")
struct StoredPayloadsTests {
  typealias F = StoreKitFixtures

  /// Every field Apple sends, as the verifier decodes it.
  static func everyField() throws -> TransactionPayload {
    let json = """
      {"transactionId":"2000000123","originalTransactionId":"2000000100","webOrderLineItemId":"2000000099",
      "bundleId":"com.example.tollgate","productId":"pro_monthly","subscriptionGroupIdentifier":"21","purchaseDate":1750000000123,
      "originalPurchaseDate":1740000000456,"expiresDate":1752592000123,"quantity":1,"type":"Auto-Renewable Subscription",
      "appAccountToken":"3F2B8A7E-5C1D-4E9F-A6B0-1D2C3E4F5A6B","inAppOwnershipType":"FAMILY_SHARED","signedDate":1750000000999,
      "revocationDate":1751000000000,"revocationReason":1,"isUpgraded":true,"offerType":2,"offerIdentifier":"spring",
      "offerDiscountType":"PAY_AS_YOU_GO","environment":"Sandbox","storefront":"FRA","storefrontId":"143442",
      "transactionReason":"RENEWAL","price":4990,"currency":"EUR","offerPeriod":"P1M","unknownField":{"a":[1,2]}}
      """
    return try WireCoding.decoder.decode(TransactionPayload.self, from: Data(json.utf8))
  }

  @Test("a payload stored and read back is the payload, remembered or decoded anew")
  func roundTrip() throws {
    let connection = try SQLiteConnection(path: ":memory:")
    defer { connection.close() }
    let payloads = [
      F.transaction("1", original: "1", purchased: 0, expires: 30),
      F.transaction("2", original: "1", purchased: 30, expires: 60, reason: "RENEWAL", revoked: 35, token: "a-token"),
      F.transaction("3", original: "3", purchased: 1, expires: 8, offerType: 1, discount: "FREE_TRIAL", price: 0),
      F.transaction("4", original: "4", purchased: 2, type: "Consumable", ownership: "FAMILY_SHARED"),
      try Self.everyField(),
    ]
    for payload in payloads {
      let remembering = StoredPayloads(limit: 16)
      let row = try #require(try connection.query("SELECT ? AS payload", [remembering.stored(payload)]).first)
      #expect(try remembering.payload(row) == payload, "\(payload.transactionId) remembered")
      #expect(try StoredPayloads(limit: 16).payload(row) == payload, "\(payload.transactionId) decoded")
    }
  }
}
