import Foundation
import TollgateSupport

/// A decoded StoreKit 2 transaction (`JWSTransactionDecodedPayload`). Dates are milliseconds
/// since 1970; `price` is in milliunits of `currency`.
public struct TransactionPayload: Codable, Sendable, Hashable {
  public var transactionId: String
  public var originalTransactionId: String
  public var webOrderLineItemId: String?
  public var bundleId: String
  public var productId: String
  public var subscriptionGroupIdentifier: String?
  public var purchaseDate: Int64
  public var originalPurchaseDate: Int64?
  public var expiresDate: Int64?
  public var quantity: Int?
  /// `Auto-Renewable Subscription`, `Non-Renewing Subscription`, `Consumable`, `Non-Consumable`.
  public var type: String
  /// The profile id Tollgate's SDK passes at purchase.
  public var appAccountToken: String?
  /// `PURCHASED` or `FAMILY_SHARED`.
  public var inAppOwnershipType: String?
  public var signedDate: Int64
  public var revocationDate: Int64?
  public var revocationReason: Int?
  public var isUpgraded: Bool?
  /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
  public var offerType: Int?
  public var offerIdentifier: String?
  /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`.
  public var offerDiscountType: String?
  public var environment: String
  public var storefront: String?
  /// `PURCHASE` or `RENEWAL`.
  public var transactionReason: String?
  public var price: Int64?
  public var currency: String?

  /// Types.
  public static let autoRenewable = "Auto-Renewable Subscription"
  public static let nonRenewing = "Non-Renewing Subscription"
  public static let consumable = "Consumable"
  public static let nonConsumable = "Non-Consumable"
}

/// A decoded renewal info (`JWSRenewalInfoDecodedPayload`).
public struct RenewalInfoPayload: Codable, Sendable, Hashable {
  public var originalTransactionId: String
  public var autoRenewProductId: String?
  public var productId: String?
  /// 0 off, 1 on.
  public var autoRenewStatus: Int?
  public var expirationIntent: Int?
  public var gracePeriodExpiresDate: Int64?
  public var isInBillingRetryPeriod: Bool?
  public var priceIncreaseStatus: Int?
  public var renewalDate: Int64?
  public var renewalPrice: Int64?
  public var currency: String?
  public var offerType: Int?
  public var offerIdentifier: String?
  public var signedDate: Int64
  public var environment: String
}

/// A decoded App Store Server Notification V2 (`responseBodyV2DecodedPayload`).
public struct NotificationPayload: Codable, Sendable, Hashable {
  public struct NotificationData: Codable, Sendable, Hashable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var environment: String?
    public var signedTransactionInfo: String?
    public var signedRenewalInfo: String?
    public var status: Int?
    /// A `CONSUMPTION_REQUEST`'s reason (`UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`, …).
    public var consumptionRequestReason: String?
  }

  public var notificationType: String
  public var subtype: String?
  public var notificationUUID: String
  public var version: String?
  public var signedDate: Int64
  public var data: NotificationData?
}

/// An app's App Store settings (config `app_store`): what signed data must name.
public struct AppStoreSettings: Sendable, Hashable {
  /// The app's bundle id.
  public var bundleId: String
  /// Apple's numeric app id; checked on Production notifications when set.
  public var appAppleId: Int64?
  /// Accepted environments (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
  public var environments: Set<String>
  /// Who signs the App Store Server API's tokens (`server_api`), when the app uses it.
  public var serverAPI: AppStoreServerAPISettings?
  /// Whether and how Apple's refund requests are answered (`refund_requests`).
  public var refundRequests: RefundRequestSettings?

  public init(
    bundleId: String, appAppleId: Int64? = nil, environments: Set<String>, serverAPI: AppStoreServerAPISettings? = nil,
    refundRequests: RefundRequestSettings? = nil
  ) {
    self.bundleId = bundleId
    self.appAppleId = appAppleId
    self.environments = environments
    self.serverAPI = serverAPI
    self.refundRequests = refundRequests
  }
}

extension SignedDataVerifier {
  /// Verifies a transaction JWS and checks it belongs to this app and environment.
  public func transaction(_ jws: String, for settings: AppStoreSettings) throws(SignedDataError)
    -> TransactionPayload
  {
    let transaction: TransactionPayload = try decode(jws)
    try check(bundleId: transaction.bundleId, environment: transaction.environment, appAppleId: nil, settings)
    return transaction
  }

  /// Verifies a renewal info JWS (it names no bundle: the environment is checked).
  public func renewalInfo(_ jws: String, for settings: AppStoreSettings) throws(SignedDataError)
    -> RenewalInfoPayload
  {
    let renewal: RenewalInfoPayload = try decode(jws)
    try check(bundleId: nil, environment: renewal.environment, appAppleId: nil, settings)
    return renewal
  }

  /// Verifies a notification's `signedPayload` and checks app and environment.
  public func notification(_ jws: String, for settings: AppStoreSettings) throws(SignedDataError)
    -> NotificationPayload
  {
    let notification: NotificationPayload = try decode(jws)
    try check(
      bundleId: notification.data?.bundleId ?? "", environment: notification.data?.environment ?? "",
      appAppleId: notification.data?.appAppleId, settings)
    return notification
  }

  func decode<Payload: Decodable>(_ jws: String) throws(SignedDataError) -> Payload {
    let (payload, _) = try verify(jws)
    do {
      return try JSONDecoder().decode(Payload.self, from: payload)
    } catch {
      throw .malformed("the signed payload is not a \(Payload.self): \(error)")
    }
  }

  func check(bundleId: String?, environment: String, appAppleId: Int64?, _ settings: AppStoreSettings)
    throws(SignedDataError)
  {
    if let bundleId, bundleId != settings.bundleId {
      throw .bundleMismatch("signed for bundle id \(bundleId), this app is \(settings.bundleId)")
    }
    guard settings.environments.contains(environment) else {
      throw .environmentNotAllowed(
        "signed in environment \(environment); this app accepts \(settings.environments.sorted().joined(separator: ", "))"
      )
    }
    if environment == "Production", let expected = settings.appAppleId, let appAppleId, appAppleId != expected {
      throw .bundleMismatch("signed for appAppleId \(appAppleId), this app is \(expected)")
    }
  }
}
