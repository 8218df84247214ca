import Foundation
import TollgateAPI
import TollgateSupport

/// What a token's final outcome does to its profile: the rule, as a pure function of the
/// profile as stored. The store writes the result in the transaction that ends the job.
public struct AttributionSettlement: Sendable {
  /// The profile with its new status (and Apple's payload when applied), a new version.
  public var profile: ProfileRecord
  /// Whether this made an Apple Ads install (the Apple Ads report counts it).
  public var installed: Bool
  /// The webhook events it makes (`attribution.applied`).
  public var events: [PendingWebhookEvent]

  /// The settlement of `profile` by a final `status`; nil when nothing changes, because an
  /// applied attribution is permanent (a later token's failure never takes it back).
  public static func of(
    _ profile: ProfileRecord, status: AttributionStatus, payload: AppleAdsPayload?, at: Date
  ) -> AttributionSettlement? {
    guard profile.attribution.status[appleAdsSource] != .applied else { return nil }
    var profile = profile
    profile.attribution.status[appleAdsSource] = status
    var events: [PendingWebhookEvent] = []
    let applied = status == .applied ? payload : nil
    if let payload = applied {
      profile.attribution.appleAds = AppleAdsRecord(
        payload: payload, test: payload.isDeveloperMode, clickDate: payload.clickDate.flatMap(AppleAdsDate.parse),
        resolvedAt: at)
      if !profile.appliedSources.contains(appleAdsSource) {
        profile.appliedSources = (profile.appliedSources + [appleAdsSource]).sorted()
      }
      let data = JSONValue.object(["source": .string(appleAdsSource), "apple_ads": WebhookData.json(payload)])
      events.append(PendingWebhookEvent(type: .attributionApplied, profileId: profile.id, data: data))
    }
    profile.version += 1
    profile.updatedAt = at
    return AttributionSettlement(profile: profile, installed: applied != nil, events: events)
  }
}
