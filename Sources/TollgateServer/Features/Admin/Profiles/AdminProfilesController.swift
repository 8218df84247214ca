import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /v1/admin/profiles/{profileId}`, `GET /v1/admin/profiles?customer_user_id=` and
/// `GET /v1/admin/profiles/{profileId}/activity`: a profile with its access levels, the
/// profiles of a customer, and what a profile did (attribution, assignments, transactions
/// with the paywall they were credited to, latest flows shown).
struct AdminProfilesController: Sendable {
  let auth: Authenticator
  let profiles: ProfileService

  func register(on router: inout Router) {
    router.add("GET", "/v1/admin/profiles/{profileId}", needs: .profilesRead, auth) { request, caller in
      let appId = caller.appId
      return .json(ProfilePayload(try profiles.existing(appId: appId, id: request.parameter("profileId"))))
    }

    router.add("GET", "/v1/admin/profiles", needs: .profilesRead, auth) { request, caller in
      let appId = caller.appId
      let found = try profiles.profiles(appId: appId, customerUserId: request.query["customer_user_id"] ?? "")
      return .json(["profiles": found.map(ProfilePayload.init)])
    }

    router.add("GET", "/v1/admin/profiles/{profileId}/activity", needs: .profilesRead, auth) { request, caller in
      let appId = caller.appId
      return .json(ProfileActivityPayload(try profiles.activity(appId: appId, id: request.parameter("profileId"))))
    }
  }
}

/// `GET /v1/admin/profiles/{id}/activity`: what the console's profile page shows beside the profile.
struct ProfileActivityPayload: Codable, Sendable {
  struct AppleAds: Codable, Sendable {
    var payload: AppleAdsPayload
    var test: Bool
    var resolvedAt: String

    enum CodingKeys: String, CodingKey {
      case payload, test
      case resolvedAt = "resolved_at"
    }
  }

  struct Transaction: Codable, Sendable {
    var transactionId: String
    var originalTransactionId: String
    var productId: String
    var type: String
    var reason: String?
    var purchasedAt: String
    var expiresAt: String?
    var revokedAt: String?
    /// In the currency's units.
    var price: Double?
    var currency: String?
    var environment: String
    /// The paywall the reports credit (nil: unattributed).
    var variationId: String?
    /// The paywall the SDK named, only where it differs from the credited one.
    var sdkVariationId: String?

    enum CodingKeys: String, CodingKey {
      case type, reason, price, currency, environment
      case sdkVariationId = "sdk_variation_id"
      case transactionId = "transaction_id"
      case originalTransactionId = "original_transaction_id"
      case productId = "product_id"
      case purchasedAt = "purchased_at"
      case expiresAt = "expires_at"
      case revokedAt = "revoked_at"
      case variationId = "variation_id"
    }
  }

  var profileId: String
  var attributionStatus: [String: AttributionStatus]
  var appleAds: AppleAds?
  var assignments: [AssignmentRow]
  var transactions: [Transaction]
  var events: [EventRow]
  /// App Store notifications about what the profile owns: delivered by Apple or recovered.
  var notifications: [Notification]
  /// Access levels given by hand (revoked ones too).
  var grants: [AccessGrantPayload]
  /// Apple's refund requests about what the profile owns, with what was answered.
  var refundRequests: [RefundRequestReport.Request]

  struct Notification: Codable, Sendable {
    var notificationUUID: String
    var type: String
    var subtype: String?
    var originalTransactionId: String?
    var signedAt: String
    var receivedAt: String
    /// `delivered` or `recovered`.
    var origin: String

    enum CodingKeys: String, CodingKey {
      case type, subtype, origin
      case notificationUUID = "notification_uuid"
      case originalTransactionId = "original_transaction_id"
      case signedAt = "signed_at"
      case receivedAt = "received_at"
    }
  }

  enum CodingKeys: String, CodingKey {
    case assignments, transactions, events, notifications, grants
    case refundRequests = "refund_requests"
    case profileId = "profile_id"
    case attributionStatus = "attribution_status"
    case appleAds = "apple_ads"
  }
}

extension ProfileActivityPayload {
  /// A profile's activity as the console shows it.
  init(_ activity: ProfileActivity) {
    let profile = activity.profile
    self.init(
      profileId: profile.id, attributionStatus: profile.attribution.status,
      appleAds: profile.attribution.appleAds.map {
        .init(payload: $0.payload, test: $0.test, resolvedAt: Timestamp.string($0.resolvedAt))
      },
      assignments: activity.assignments,
      transactions: activity.transactions.map { stored in
        let payload = stored.payload
        return Transaction(
          transactionId: payload.transactionId, originalTransactionId: payload.originalTransactionId,
          productId: payload.productId, type: payload.type, reason: payload.transactionReason,
          purchasedAt: Self.time(milliseconds: payload.purchaseDate),
          expiresAt: payload.expiresDate.map(Self.time(milliseconds:)),
          revokedAt: payload.revocationDate.map(Self.time(milliseconds:)),
          price: payload.price.map { Double($0) / 1000 }, currency: payload.currency,
          environment: payload.environment, variationId: stored.creditedVariationId,
          sdkVariationId: stored.variationId == stored.creditedVariationId ? nil : stored.variationId)
      },
      events: activity.events,
      notifications: activity.notifications.map {
        Notification(
          notificationUUID: $0.uuid, type: $0.type, subtype: $0.subtype,
          originalTransactionId: $0.originalTransactionId,
          signedAt: Timestamp.string(Date(timeIntervalSince1970: $0.signedAt)),
          receivedAt: Timestamp.string(Date(timeIntervalSince1970: $0.receivedAt)), origin: $0.origin)
      },
      grants: activity.grants.map { AccessGrantPayload($0, now: activity.now) },
      refundRequests: RefundRequestReport(from: activity.now, to: activity.now, activity.refundRequests).requests
        .reversed())
  }

  static func time(milliseconds: Int64) -> String {
    Timestamp.string(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
  }
}
