import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain

/// The Apple Ads report's rows a fact makes, the same for the live rollup and the rebuild.
@Suite("Apple Ads projection")
struct AppleAdsProjectionTests {
  typealias F = StoreKitFixtures
  static let group = AppleAdsProjection.Group(day: 100, campaign: 1, adGroup: 2, keyword: 3)

  @Test("an install that had bought already, then a sale: installs, first launches in time, purchasers, gross")
  func install() {
    var changes = AppleAdsProjection.Changes()
    AppleAdsProjection.install(Self.group, flowInTime: true, purchaser: true, into: &changes)
    AppleAdsProjection.sale(Self.group, F.transaction("1000", purchased: 0, expires: 30), into: &changes)
    AppleAdsProjection.sale(Self.group, F.transaction("1001", purchased: 30, expires: 60), into: &changes)
    #expect(changes.counts[Self.group] == AppleAdsProjection.Counts(installs: 1, flowInTime: 1, purchasers: 1))
    #expect(changes.gross == [.init(group: Self.group, currency: "USD"): 19_980])
  }

  @Test("a first purchase after the install was known adds a purchaser, not an install")
  func firstPurchase() {
    var changes = AppleAdsProjection.Changes()
    AppleAdsProjection.firstPurchase(Self.group, into: &changes)
    #expect(changes.counts[Self.group] == AppleAdsProjection.Counts(purchasers: 1))
  }
}
