import Foundation

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Builds App Store payloads the way Apple shapes them, at times counted in days from `start`.
enum StoreKitFixtures {
  static let bundleId = "com.example.tollgate"
  static let settings = AppStoreSettings(bundleId: bundleId, environments: ["Sandbox", "Production"])
  static let levels = [
    AccessLevelDefinition(id: "premium", products: ["pro_monthly", "pro_annual", "pro_lifetime"]),
    AccessLevelDefinition(id: "coins", products: ["coins_100"]),
  ]
  /// Day 0 (ManualTime's default start).
  static let start: Double = 1_790_000_000

  static func milliseconds(_ day: Double) -> Int64 { Int64((start + day * 86_400) * 1000) }
  static func date(_ day: Double) -> Date { Date(timeIntervalSince1970: start + day * 86_400) }

  static func transaction(
    _ id: String, original: String = "1000", product: String = "pro_monthly", purchased: Double,
    expires: Double? = nil, signed: Double? = nil, type: String = TransactionPayload.autoRenewable,
    reason: String? = nil, revoked: Double? = nil, upgraded: Bool? = nil, offerType: Int? = nil,
    discount: String? = nil, token: String? = nil, ownership: String = "PURCHASED", price: Int64 = 9_990
  ) -> TransactionPayload {
    TransactionPayload(
      transactionId: id, originalTransactionId: original, webOrderLineItemId: nil, bundleId: bundleId,
      productId: product, subscriptionGroupIdentifier: type == TransactionPayload.autoRenewable ? "pro" : nil,
      purchaseDate: milliseconds(purchased), originalPurchaseDate: nil, expiresDate: expires.map(milliseconds),
      quantity: 1, type: type, appAccountToken: token, inAppOwnershipType: ownership,
      signedDate: milliseconds(signed ?? purchased), revocationDate: revoked.map(milliseconds),
      revocationReason: revoked == nil ? nil : 0, isUpgraded: upgraded, offerType: offerType, offerIdentifier: nil,
      offerDiscountType: discount, environment: "Sandbox", storefront: "USA",
      transactionReason: reason ?? (id == original ? "PURCHASE" : "RENEWAL"), price: price, currency: "USD")
  }

  static func renewal(
    original: String = "1000", autoRenew: Int = 1, retry: Bool = false, grace: Double? = nil, intent: Int? = nil,
    signed: Double
  ) -> RenewalInfoPayload {
    RenewalInfoPayload(
      originalTransactionId: original, autoRenewProductId: "pro_monthly", productId: "pro_monthly",
      autoRenewStatus: autoRenew, expirationIntent: intent, gracePeriodExpiresDate: grace.map(milliseconds),
      isInBillingRetryPeriod: retry, priceIncreaseStatus: nil, renewalDate: nil, renewalPrice: nil, currency: "USD",
      offerType: nil, offerIdentifier: nil, signedDate: milliseconds(signed), environment: "Sandbox")
  }

  /// JSON objects for `StoreKitSigner.sign(json:)`.
  static func object<T: Encodable>(_ value: T) -> [String: Any] {
    let data = try! JSONEncoder().encode(value)
    return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
  }

  /// A notification with its transaction and renewal info as nested objects (signed first).
  static func notification(
    _ type: String, subtype: String? = nil, uuid: String = UUID().uuidString, signed: Double,
    transaction: TransactionPayload? = nil, renewal: RenewalInfoPayload? = nil, bundleId: String = bundleId
  ) -> [String: Any] {
    var data: [String: Any] = ["bundleId": bundleId, "environment": "Sandbox", "bundleVersion": "1"]
    if let transaction { data["signedTransactionInfo"] = object(transaction) }
    if let renewal { data["signedRenewalInfo"] = object(renewal) }
    var payload: [String: Any] = [
      "notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": milliseconds(signed),
      "data": data,
    ]
    if let subtype { payload["subtype"] = subtype }
    return payload
  }
}
