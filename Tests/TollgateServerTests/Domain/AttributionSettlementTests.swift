import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain

/// What a token's final outcome does to a profile, on hand-written profiles.
@Suite("Attribution settlement")
struct AttributionSettlementTests {
  let start = Date(timeIntervalSince1970: 1_750_000_000)

  @Test("applied: Apple's payload, the source, a new version, an install and one attribution.applied event")
  func applied() throws {
    let profile = ProfileRecord(id: "p", version: 3, createdAt: start, updatedAt: start)
    var payload = AppleAdsPayload(attribution: true)
    payload.campaignId = 42
    payload.clickDate = "2025-06-15T10:20Z"
    let later = start.addingTimeInterval(60)
    let settled = try #require(AttributionSettlement.of(profile, status: .applied, payload: payload, at: later))
    #expect(settled.installed)
    #expect(settled.profile.version == 4 && settled.profile.updatedAt == later)
    #expect(settled.profile.appliedSources == [appleAdsSource])
    #expect(settled.profile.attribution.status[appleAdsSource] == .applied)
    #expect(settled.profile.attribution.appleAds?.payload.campaignId == 42)
    #expect(settled.profile.attribution.appleAds?.clickDate == AppleAdsDate.parse("2025-06-15T10:20Z"))
    #expect(settled.events.map(\.type) == [.attributionApplied])
    #expect(settled.events.first?.profileId == "p")
  }

  @Test("another final status changes the status alone: no install, no event")
  func notApplied() throws {
    let profile = ProfileRecord(id: "p", createdAt: start, updatedAt: start)
    let settled = try #require(AttributionSettlement.of(profile, status: .invalid, payload: nil, at: start))
    #expect(!settled.installed && settled.events.isEmpty)
    #expect(settled.profile.attribution.status[appleAdsSource] == .invalid)
    #expect(settled.profile.appliedSources.isEmpty && settled.profile.version == 2)
  }

  @Test("applied is permanent: a later token's outcome changes nothing")
  func permanent() throws {
    let profile = ProfileRecord(id: "p", createdAt: start, updatedAt: start)
    let applied = try #require(
      AttributionSettlement.of(profile, status: .applied, payload: AppleAdsPayload(attribution: true), at: start))
    #expect(AttributionSettlement.of(applied.profile, status: .invalid, payload: nil, at: start) == nil)
    #expect(
      AttributionSettlement.of(
        applied.profile, status: .applied, payload: AppleAdsPayload(attribution: true), at: start)
        == nil)
  }
}
