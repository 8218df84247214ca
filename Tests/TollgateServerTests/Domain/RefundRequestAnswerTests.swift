import Foundation
import Testing

@testable import TollgateDomain

/// The refund-request rule on hand-written values: nothing without consent, Apple's body otherwise.
@Suite("Refund request answers")
struct RefundRequestAnswerTests {
  static let subscription = TransactionPayload.autoRenewable

  @Test("not configured, switched off or without consent: never sent, and the reason is kept")
  func neverWithoutConsent() {
    #expect(
      RefundRequestAnswer.decide(settings: nil, productType: Self.subscription, delivered: true) == .notSent("off"))
    #expect(
      RefundRequestAnswer.decide(
        settings: .init(answer: false, customerConsent: true), productType: Self.subscription, delivered: true)
        == .notSent("off"))
    #expect(
      RefundRequestAnswer.decide(
        settings: .init(answer: true, customerConsent: false, preference: "grant_full"),
        productType: Self.subscription, delivered: true) == .notSent("no_consent"))
  }

  @Test("the body: consent, sample content, delivery, the preference in Apple's words, 0 % only when undelivered")
  func body() {
    let settings = RefundRequestSettings(
      answer: true, customerConsent: true, sampleContentProvided: true, preference: "grant_prorated")
    #expect(
      RefundRequestAnswer.decide(settings: settings, productType: Self.subscription, delivered: true)
        == .send(
          ConsumptionInformation(
            customerConsented: true, sampleContentProvided: true, deliveryStatus: "DELIVERED",
            consumptionPercentage: nil, refundPreference: "GRANT_PRORATED")))
    #expect(
      RefundRequestAnswer.decide(settings: settings, productType: "Consumable", delivered: false)
        == .send(
          ConsumptionInformation(
            customerConsented: true, sampleContentProvided: true, deliveryStatus: "UNDELIVERED_OTHER",
            consumptionPercentage: 0, refundPreference: "GRANT_PRORATED")))
    #expect(
      RefundRequestAnswer.decide(
        settings: .init(answer: true, customerConsent: true), productType: "Consumable", delivered: true)
        == .send(
          ConsumptionInformation(customerConsented: true, sampleContentProvided: false, deliveryStatus: "DELIVERED")))
  }

  @Test("a grant ranks as a purchase: lifetime first, a revoked or lapsed one inactive, and it says when it lapses")
  func grants() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let levels = [AccessLevelDefinition(id: "premium", products: ["pro_monthly"])]
    let soon = AccessGrant(
      id: 1, accessLevel: "premium", grantedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(3_600),
      reason: "ticket", grantedBy: "key")
    var derived = PurchaseDerivation.derive(PurchaseHistory(grants: [soon]), levels: levels, now: now)
    #expect(derived.payload.accessLevels["premium"]?.isActive == true)
    #expect(derived.payload.accessLevels["premium"]?.store == AccessGrant.store)
    #expect(derived.nextChangeAt == now.addingTimeInterval(3_600))
    #expect(derived.levelsKey != nil)
    var lifetime = soon
    lifetime.id = 2
    lifetime.expiresAt = nil
    derived = PurchaseDerivation.derive(PurchaseHistory(grants: [soon, lifetime]), levels: levels, now: now)
    #expect(derived.payload.accessLevels["premium"]?.vendorTransactionId == "grant-2")
    lifetime.revokedAt = now
    derived = PurchaseDerivation.derive(PurchaseHistory(grants: [lifetime]), levels: levels, now: now)
    #expect(derived.payload.accessLevels["premium"]?.isActive == false)
    #expect(derived.nextChangeAt == nil)
  }
}
