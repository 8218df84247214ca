import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain

/// The placement report's rows a fact makes: the one definition the live rollup and the rebuild
/// both apply.
@Suite("Placement projection")
struct PlacementProjectionTests {
  typealias F = StoreKitFixtures
  static let paywall = PlacementProjection.Variation(placement: "onboarding", audience: "everyone", variation: "v")

  @Test("a sale on its purchase day; a refund and the refunded price on the refund's day")
  func transaction() {
    var changes = PlacementProjection.Changes()
    let refunded = F.transaction("1000", purchased: 0, expires: 30, revoked: 3)
    PlacementProjection.transaction(refunded, Self.paywall, into: &changes)
    let purchased = PlacementProjection.MoneyDay(variation: Self.paywall, day: refunded.purchaseDay, currency: "USD")
    let refund = PlacementProjection.MoneyDay(variation: Self.paywall, day: refunded.revocationDay!, currency: "USD")
    #expect(changes.money[purchased] == MoneyFigures(gross: 9_990, transactions: 1))
    #expect(changes.money[refund] == MoneyFigures(refunded: 9_990))
    #expect(changes.daily == [.init(variation: Self.paywall, day: refunded.revocationDay!): ["refunds": 1]])
  }

  @Test("a transaction signed again changes by its new rows less its old: only the refund")
  func resigned() {
    let bought = F.transaction("1000", purchased: 0, expires: 30)
    let refunded = F.transaction("1000", purchased: 0, expires: 30, signed: 3, revoked: 3)
    var changes = PlacementProjection.Changes()
    PlacementProjection.transaction(refunded, Self.paywall, into: &changes)
    PlacementProjection.transaction(bought, Self.paywall, into: &changes, sign: -1)
    let sale = PlacementProjection.MoneyDay(variation: Self.paywall, day: bought.purchaseDay, currency: "USD")
    #expect(changes.money[sale] == MoneyFigures(), "the sale was counted when first stored")
    #expect(changes.daily.values.map { $0["refunds"] } == [1])
  }

  @Test("a converted trial: a trial on its first day, a conversion on the paid day")
  func trial() {
    let facts = TrialFacts.of([
      F.transaction("1000", purchased: 0, expires: 7, offerType: 1, discount: "FREE_TRIAL", price: 0),
      F.transaction("1001", purchased: 7, expires: 37, reason: "RENEWAL"),
    ])
    var changes = PlacementProjection.Changes()
    PlacementProjection.trial(facts, Self.paywall, into: &changes)
    #expect(changes.daily[.init(variation: Self.paywall, day: facts.trialDay!)] == ["trials": 1])
    #expect(changes.daily[.init(variation: Self.paywall, day: facts.convertedDay!)] == ["trial_conversions": 1])
  }
}
