import Foundation
import TollgateAPI
import TollgateSupport

/// An access level given by hand (support's goodwill, a promotion, a press account): not a
/// purchase, so it is kept apart from Apple's facts and joins them in the derivation.
public struct AccessGrant: Codable, Sendable, Hashable {
  /// The grant's number (the `vendor_transaction_id` the SDK sees is `grant-<id>`).
  public var id: Int64
  /// The configured access level it unlocks.
  public var accessLevel: String
  public var grantedAt: Date
  /// When it ends; nil: lifetime.
  public var expiresAt: Date?
  /// Why it was given (kept for the audit and the timeline).
  public var reason: String
  public var grantedBy: String
  /// When it was taken back; nil while it stands.
  public var revokedAt: Date?
  public var revokedBy: String?

  public init(
    id: Int64, accessLevel: String, grantedAt: Date, expiresAt: Date?, reason: String, grantedBy: String,
    revokedAt: Date? = nil, revokedBy: String? = nil
  ) {
    self.id = id
    self.accessLevel = accessLevel
    self.grantedAt = grantedAt
    self.expiresAt = expiresAt
    self.reason = reason
    self.grantedBy = grantedBy
    self.revokedAt = revokedAt
    self.revokedBy = revokedBy
  }

  /// The `store` of an access level a grant unlocks.
  public static let store = "promotional"

  /// Whether it unlocks its level at `now`.
  public func isActive(at now: Date) -> Bool {
    revokedAt == nil && (expiresAt.map { $0 > now } ?? true)
  }

  /// The access level as the SDK sees it.
  func accessLevel(now: Date) -> AccessLevelPayload {
    AccessLevelPayload(
      id: accessLevel, isActive: isActive(at: now), vendorProductId: "", vendorTransactionId: "grant-\(id)",
      vendorOriginalTransactionId: "grant-\(id)", store: Self.store, activatedAt: Timestamp.string(grantedAt),
      renewedAt: nil, expiresAt: expiresAt.map(Timestamp.string), isLifetime: expiresAt == nil, willRenew: false,
      isInGracePeriod: false, billingIssueDetectedAt: nil, unsubscribedAt: nil, isRefund: false,
      activeIntroductoryOfferType: nil)
  }
}
