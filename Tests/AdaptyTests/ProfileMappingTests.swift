import Foundation
import Testing
import TollgateAPI

@testable import Adapty

/// What the server says of a subscription reaches the profile the app reads.
@Suite("Profile mapping")
struct ProfileMappingTests {
  @Test("a subscription in its free trial: isTrial and activeIntroductoryOfferType, as Adapty's profile has them")
  func introductoryOffer() throws {
    let wire = SubscriptionPayload(
      vendorProductId: "pro_annual_intro", vendorTransactionId: "2", vendorOriginalTransactionId: "1",
      state: .active, isActive: true, activatedAt: "2026-01-01T00:00:00.000Z", renewedAt: nil,
      expiresAt: "2026-01-08T00:00:00.000Z", willRenew: true, isInGracePeriod: false, isInBillingRetry: false,
      billingIssueDetectedAt: nil, unsubscribedAt: nil, isRefund: false, expirationReason: nil, isSandbox: true,
      isFamilyShared: false, isTrial: true, activeIntroductoryOfferType: "free_trial")
    let subscription = AdaptyProfile.Subscription(wire)
    #expect(subscription.isTrial && subscription.activeIntroductoryOfferType == "free_trial")
    // A profile cached by an earlier version (no such key) still reads.
    var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(subscription)) as! [String: Any]
    json.removeValue(forKey: "activeIntroductoryOfferType")
    let older = try JSONDecoder().decode(
      AdaptyProfile.Subscription.self, from: JSONSerialization.data(withJSONObject: json))
    #expect(older.activeIntroductoryOfferType == nil && older.isTrial)
  }
}
