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

  /// Folds first-day facts in one order, as the rebuild does and the live path does row by row.
  static func fold(_ facts: [PlacementProjection.First]) -> (PlacementProjection.First?, PlacementProjection.Changes) {
    var changes = PlacementProjection.Changes()
    var known: PlacementProjection.First?
    for fact in facts {
      if let first = PlacementProjection.first("viewers", fact, known: known, into: &changes) { known = first }
    }
    return (known, changes)
  }

  @Test("a first day is the earliest fact's, counted once at its paywall, in any arrival order")
  func firstDayOrder() {
    let other = PlacementProjection.Variation(placement: "settings", audience: "everyone", variation: "v")
    let facts = [
      PlacementProjection.First(variation: Self.paywall, day: 5), .init(variation: other, day: 3),
      .init(variation: Self.paywall, day: 7), .init(variation: Self.paywall, day: 3),
    ]
    var orders: [[PlacementProjection.First]] = [[]]
    for fact in facts {
      orders = orders.flatMap { order in
        (0...order.count).map {
          var o = order; o.insert(fact, at: $0); return o
        }
      }
    }
    #expect(orders.count == 24)
    for order in orders {
      let (first, changes) = Self.fold(order)
      #expect(first?.day == 3)
      // Whichever day-3 fact came first keeps the day; a same-day fact after it moves nothing.
      let keeper = order.first { $0.day == 3 }!
      #expect(first == keeper)
      let counted = changes.daily.filter { $0.value["viewers"] != 0 }
      #expect(counted == [.init(variation: keeper.variation, day: 3): ["viewers": 1]], "\(order)")
    }
  }

  @Test("a fact on or after the known first day changes nothing")
  func firstDayKept() {
    var changes = PlacementProjection.Changes()
    let known = PlacementProjection.First(variation: Self.paywall, day: 4)
    #expect(PlacementProjection.first("purchasers", known, known: known, into: &changes) == nil)
    #expect(
      PlacementProjection.first("purchasers", .init(variation: Self.paywall, day: 9), known: known, into: &changes)
        == nil)
    #expect(changes.isEmpty)
  }

  /// The payer moments all changes sum to, over every row.
  static func moments(_ changes: PlacementProjection.Changes) -> PayerMoments {
    changes.payers.values.reduce(PayerMoments(), +)
  }

  @Test("a payer's net follows refunds made, taken back and prices changed; unchanged versions change nothing")
  func payerHistory() {
    let bought = F.transaction("1000", purchased: 2, expires: 32)
    let refunded = F.transaction("1000", purchased: 2, expires: 32, signed: 5, revoked: 5)
    let restored = F.transaction("1000", purchased: 2, expires: 32, signed: 6)
    let repriced = F.transaction("1000", purchased: 2, expires: 32, signed: 7, price: 4_990)
    var changes = PlacementProjection.Changes()
    var payer = PlacementProjection.payer(nil, old: nil, new: bought, Self.paywall, into: &changes)
    #expect(payer == .init(first: .init(variation: Self.paywall, day: bought.purchaseDay), net: 9_990))
    #expect(Self.moments(changes) == .payer(net: 9_990))
    payer = PlacementProjection.payer(payer, old: bought, new: refunded, Self.paywall, into: &changes)
    #expect(payer?.net == 0)
    #expect(Self.moments(changes).isZero, "a payer who got it all back is no paying viewer")
    payer = PlacementProjection.payer(payer, old: refunded, new: restored, Self.paywall, into: &changes)
    #expect(payer?.net == 9_990)
    payer = PlacementProjection.payer(payer, old: restored, new: repriced, Self.paywall, into: &changes)
    #expect(payer?.net == 4_990, "the net moves by the price's change")
    #expect(Self.moments(changes) == .payer(net: 4_990))
    let known = payer
    #expect(PlacementProjection.payer(known, old: repriced, new: repriced, Self.paywall, into: &changes) == nil)
    #expect(Self.moments(changes) == .payer(net: 4_990))
  }

  @Test("a payer's renewals fold to the same payer and rows in either order")
  func payerOrder() {
    let first = F.transaction("1000", purchased: 2, expires: 32)
    let renewal = F.transaction("1001", purchased: 32, expires: 62, price: 12_990)
    let other = PlacementProjection.Variation(placement: "settings", audience: "everyone", variation: "v")
    func fold(_ transactions: [TransactionPayload]) -> (PlacementProjection.Payer?, PlacementProjection.Changes) {
      var changes = PlacementProjection.Changes()
      var payer: PlacementProjection.Payer?
      for transaction in transactions {
        let credit = transaction.transactionId == "1000" ? Self.paywall : other
        payer = PlacementProjection.payer(payer, old: nil, new: transaction, credit, into: &changes) ?? payer
      }
      return (payer, changes)
    }
    let (inOrder, rows) = fold([first, renewal])
    let (reversed, reversedRows) = fold([renewal, first])
    #expect(inOrder?.net == 22_980)
    #expect(inOrder?.first.day == first.purchaseDay)
    #expect(reversed?.net == inOrder?.net)
    #expect(reversed?.first.day == inOrder?.first.day)
    let day = PlacementProjection.MoneyDay(variation: Self.paywall, day: first.purchaseDay, currency: "USD")
    #expect(rows.payers.filter { !$0.value.isZero } == [day: .payer(net: 22_980)])
    // Reversed, the payer keeps the paywall they were first counted for.
    let kept = PlacementProjection.MoneyDay(variation: other, day: first.purchaseDay, currency: "USD")
    #expect(reversedRows.payers.filter { !$0.value.isZero } == [kept: .payer(net: 22_980)])
  }
}
