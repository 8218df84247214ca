import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateServer

/// The purchase rules on their own, over hand-written histories: who owns a subscription after
/// new facts, and which webhook events a transaction makes.
@Suite("Purchase rules")
struct PurchaseOwnershipTests {
  typealias F = StoreKitFixtures

  @Test(
    "a claimant takes the subscription (transfer), shares it (shared) or gets nothing while another owns it (off)",
    arguments: [
      (AccessLevelSharing.transfer, PurchaseOwnership.Decision.link(profile: "b", removing: ["a"])),
      (.shared, .link(profile: "b", removing: [])),
      (.off, .keep),
    ])
  func claimant(sharing: AccessLevelSharing, expected: PurchaseOwnership.Decision) {
    #expect(PurchaseOwnership.decide(claimant: "b", sharing: sharing, owners: ["a"], tokenProfile: nil) == expected)
  }

  @Test("a claimant that already owns it, or a subscription nobody owns, is linked whatever the sharing")
  func claimantAlone() {
    for sharing in AccessLevelSharing.allCases {
      #expect(
        PurchaseOwnership.decide(claimant: "a", sharing: sharing, owners: ["a"], tokenProfile: nil)
          == .link(profile: "a", removing: []))
      #expect(
        PurchaseOwnership.decide(claimant: "a", sharing: sharing, owners: [], tokenProfile: "z")
          == .link(profile: "a", removing: []), "the claimant wins over the token")
    }
  }

  @Test("a notification: an unowned subscription goes to the token's profile, else stays unowned; owners stay")
  func notification() {
    #expect(
      PurchaseOwnership.decide(claimant: nil, sharing: .transfer, owners: [], tokenProfile: "t")
        == .link(profile: "t", removing: []))
    #expect(PurchaseOwnership.decide(claimant: nil, sharing: .transfer, owners: [], tokenProfile: nil) == .unowned)
    #expect(PurchaseOwnership.decide(claimant: nil, sharing: .transfer, owners: ["a"], tokenProfile: "t") == .keep)
  }

  @Test("a transaction is credited to the claimant, else the first owner, else the token's profile")
  func purchaser() {
    #expect(PurchaseOwnership.purchaser(claimant: "c", owners: ["a"], tokenProfile: "t") == "c")
    #expect(PurchaseOwnership.purchaser(claimant: nil, owners: ["a", "b"], tokenProfile: "t") == "a")
    #expect(PurchaseOwnership.purchaser(claimant: nil, owners: [], tokenProfile: "t") == "t")
    #expect(PurchaseOwnership.purchaser(claimant: nil, owners: [], tokenProfile: nil) == nil)
  }

  @Test("first stored: started, trial, renewed or a one-time purchase; a refund too when it arrives refunded")
  func firstStored() {
    let credit = PurchaseAttribution(profileId: "p")
    func types(_ payload: TransactionPayload) -> [WebhookEventType] {
      TransactionEvents.firstStored(payload, credit: credit).map(\.type)
    }
    #expect(types(F.transaction("1000", purchased: 0, expires: 30)) == [.subscriptionStarted])
    #expect(
      types(F.transaction("1000", purchased: 0, expires: 7, offerType: 1, discount: "FREE_TRIAL", price: 0))
        == [.trialStarted])
    #expect(types(F.transaction("1001", purchased: 30, expires: 60)) == [.subscriptionRenewed])
    #expect(
      types(F.transaction("2000", original: "2000", product: "pro_lifetime", purchased: 0, type: "Non-Consumable"))
        == [.nonSubscriptionPurchased])
    #expect(types(F.transaction("1000", purchased: 0, expires: 30, revoked: 3)) == [.subscriptionStarted, .refund])
    #expect(TransactionEvents.firstStored(F.transaction("1000", purchased: 0), credit: credit)[0].profileId == "p")
  }

  @Test("signed again: the newer signature replaces the stored one; a refund event only when it became refunded")
  func resigned() {
    let credit = PurchaseAttribution(profileId: "p")
    let bought = F.transaction("1000", purchased: 0, expires: 30)
    let refunded = F.transaction("1000", purchased: 0, expires: 30, signed: 3, revoked: 3)
    let stored = Double(bought.signedDate) / 1000
    #expect(TransactionEvents.replaces(refunded, storedSignedAt: stored))
    #expect(!TransactionEvents.replaces(bought, storedSignedAt: stored), "the same signature changes nothing")
    #expect(TransactionEvents.resigned(old: bought, new: refunded, credit: credit).map(\.type) == [.refund])
    #expect(TransactionEvents.resigned(old: refunded, new: refunded, credit: credit).isEmpty)
    let upgraded = F.transaction("1000", purchased: 0, expires: 30, signed: 10, upgraded: true)
    #expect(TransactionEvents.resigned(old: bought, new: upgraded, credit: credit).isEmpty)
  }

  @Test("credit: a renewal follows its subscription, then the named variation, then the last flow shown in 24 h")
  func credit() throws {
    let bought = F.transaction("1000", purchased: 1, expires: 31)
    let shown = PurchaseAttribution(placementId: "onboarding", audienceId: "all", variationId: "onboarding:all:a")
    var asked: [(Date, Date)] = []
    func credit(
      named: String? = nil, owned: Bool = false, buyer: String? = "p", subscription: PurchaseAttribution? = nil
    )
      -> PurchaseAttribution
    {
      PurchaseCredit.of(
        bought, namedVariation: named, owned: owned, buyer: buyer, subscription: subscription,
        lastShown: { from, through in
          asked.append((from, through))
          return shown
        })
    }
    let first = PurchaseAttribution(placementId: "x", audienceId: "y", variationId: "x:y:z")
    #expect(
      credit(subscription: first)
        == PurchaseAttribution(placementId: "x", audienceId: "y", variationId: "x:y:z", profileId: "p"),
      "a renewal inherits the first transaction's paywall and gets the buyer")
    #expect(
      credit(named: "home:vip:b")
        == PurchaseAttribution(placementId: "home", audienceId: "vip", variationId: "home:vip:b", profileId: "p"))
    #expect(asked.isEmpty, "the events are read only when nothing else decides")
    #expect(credit(buyer: nil) == PurchaseAttribution(), "nobody to credit yet")
    #expect(
      credit(owned: true) == PurchaseAttribution(profileId: "p"), "a subscription from before: no paywall sold it")
    #expect(asked.isEmpty)
    var expected = shown
    expected.profileId = "p"
    #expect(credit() == expected)
    let window = try #require(asked.first)
    #expect(
      window.1 == F.date(1) && window.0 == F.date(1).addingTimeInterval(-24 * 3600), "the 24 h before the purchase")
    #expect(credit(named: "not-a-variation-id") == expected, "a malformed name falls through to the last flow shown")
  }
}
