import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Subscription states as Apple's notification sequences drive them, table-driven, through
/// the real store and derivation (SQLite, and PostgreSQL when `make test` runs one).
@Suite("Subscription state")
struct SubscriptionStateTests {
  typealias F = StoreKitFixtures

  /// One fact as it reaches the server.
  enum Step {
    /// The SDK sends a transaction (the profile claims it).
    case sdk(TransactionPayload)
    /// Apple posts a notification.
    case notify(String, String?, uuid: String, signed: Double, TransactionPayload?, RenewalInfoPayload?)

    static func note(
      _ type: String, _ subtype: String? = nil, signed: Double, _ transaction: TransactionPayload? = nil,
      _ renewal: RenewalInfoPayload? = nil
    ) -> Step {
      .notify(type, subtype, uuid: "\(type)-\(subtype ?? "")-\(signed)", signed: signed, transaction, renewal)
    }
  }

  /// What the premium access level and the subscription say at a given day.
  struct Expected: Equatable, CustomStringConvertible {
    var state: SubscriptionState
    var isActive: Bool
    var willRenew: Bool
    var product: String
    var billingIssue: Bool
    var expirationReason: String?
    var unsubscribed: Bool = false
    var isRefund: Bool = false

    var description: String {
      "\(state.rawValue) active=\(isActive) renew=\(willRenew) \(product) billing=\(billingIssue) "
        + "reason=\(expirationReason ?? "-") unsubscribed=\(unsubscribed) refund=\(isRefund)"
    }
  }

  struct Case: CustomStringConvertible, Sendable {
    let name: String
    /// Steps, each followed by what is expected at a day.
    let script: [(Step, day: Double, Expected)]
    var description: String { name }
  }

  static let initial = F.transaction("1000", purchased: 0, expires: 30)
  static let renewed = F.transaction("1001", purchased: 30, expires: 60)
  static let recovered = F.transaction("1002", purchased: 62, expires: 92)
  static let failGrace = Step.note(
    "DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: 60, renewed, F.renewal(retry: true, grace: 76, signed: 60))
  static let renewal = Step.note("DID_RENEW", signed: 30, renewed, F.renewal(signed: 30))
  static let recovery = Step.note(
    "DID_RENEW", "BILLING_RECOVERY", signed: 62, recovered, F.renewal(retry: false, signed: 62))

  static func active(_ product: String = "pro_monthly", renew: Bool = true) -> Expected {
    Expected(
      state: .active, isActive: true, willRenew: renew, product: product, billingIssue: false, expirationReason: nil)
  }

  static let cases: [Case] = [
    Case(
      name: "initial buy → renew → fail → grace → recover",
      script: [
        (.sdk(initial), 1, active()),
        (renewal, 31, active()),
        (
          failGrace, 61,
          Expected(
            state: .gracePeriod, isActive: true, willRenew: true, product: "pro_monthly", billingIssue: true,
            expirationReason: nil)
        ),
        (recovery, 63, active()),
      ]),
    Case(
      name: "fail → billing retry → expire",
      script: [
        (.sdk(initial), 1, active()),
        (
          .note("DID_FAIL_TO_RENEW", signed: 30, initial, F.renewal(retry: true, signed: 30)), 31,
          Expected(
            state: .billingRetry, isActive: false, willRenew: true, product: "pro_monthly", billingIssue: true,
            expirationReason: nil)
        ),
        (
          .note(
            "EXPIRED", "BILLING_RETRY", signed: 90, initial,
            F.renewal(autoRenew: 0, retry: false, intent: 2, signed: 90)
          ), 91,
          Expected(
            state: .expired, isActive: false, willRenew: false, product: "pro_monthly", billingIssue: false,
            expirationReason: "billing_error", unsubscribed: true)
        ),
      ]),
    Case(
      name: "refund",
      script: [
        (.sdk(initial), 1, active()),
        (
          .note("REFUND", signed: 5, F.transaction("1000", purchased: 0, expires: 30, signed: 5, revoked: 5)), 6,
          Expected(
            state: .revoked, isActive: false, willRenew: false, product: "pro_monthly", billingIssue: false,
            expirationReason: "refund", isRefund: true)
        ),
      ]),
    Case(
      name: "upgrade within the group",
      script: [
        (.sdk(initial), 1, active()),
        (
          .sdk(F.transaction("1001", product: "pro_annual", purchased: 10, expires: 375, reason: "PURCHASE")), 11,
          active("pro_annual")
        ),
        (
          .sdk(F.transaction("1000", purchased: 0, expires: 30, signed: 10, revoked: 10, upgraded: true)), 12,
          active("pro_annual")
        ),
      ]),
    Case(
      name: "auto-renew off → expire",
      script: [
        (.sdk(initial), 1, active()),
        (
          .note(
            "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: 10, initial, F.renewal(autoRenew: 0, signed: 10)
          ),
          11,
          Expected(
            state: .active, isActive: true, willRenew: false, product: "pro_monthly", billingIssue: false,
            expirationReason: nil, unsubscribed: true)
        ),
        (
          .note("EXPIRED", "VOLUNTARY", signed: 30, initial, F.renewal(autoRenew: 0, intent: 1, signed: 30)), 31,
          Expected(
            state: .expired, isActive: false, willRenew: false, product: "pro_monthly", billingIssue: false,
            expirationReason: "voluntary", unsubscribed: true)
        ),
      ]),
    Case(
      name: "expiry with no notification: the clock alone ends access",
      script: [
        (.sdk(initial), 29, active()),
        (
          .sdk(initial), 31,
          Expected(
            state: .expired, isActive: false, willRenew: false, product: "pro_monthly", billingIssue: false,
            expirationReason: "other")
        ),
      ]),
  ]

  /// A profile, its store, and a way to apply steps at a day.
  struct Ledger {
    let store: any Database
    let appId: Int64
    let profileId = UUID().uuidString.lowercased()

    init(_ factory: StoreFactory) throws {
      store = try factory.make()
      appId = try store.createApp(name: "ledger-\(UUID().uuidString.prefix(8))").id
      _ = try store.insertProfile(
        appId: appId, ProfileRecord(id: profileId, createdAt: F.date(0), updatedAt: F.date(0)))
    }

    func derive(at day: Double) -> (PurchaseHistory) -> ProfilePurchases {
      { PurchaseDerivation.derive($0, levels: F.levels, now: F.date(day)) }
    }

    @discardableResult
    func apply(_ step: Step, at day: Double) throws -> AppStoreFactsOutcome {
      switch step {
      case .sdk(let transaction):
        return try PurchaseRecorder(store).record(
          appId: appId,
          AppStoreFacts(transactions: [StoredTransaction(payload: transaction, jws: "jws")], claimant: profileId),
          at: F.date(day), derive: derive(at: day))
      case .notify(let type, let subtype, let uuid, let signed, let transaction, let renewal):
        let fact = NotificationFact(
          type: type, subtype: subtype, signedDate: F.milliseconds(signed),
          originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId, renewal: renewal)
        return try PurchaseRecorder(store).record(
          appId: appId,
          AppStoreFacts(
            transactions: transaction.map { [StoredTransaction(payload: $0, jws: "jws")] } ?? [],
            notification: StoredNotification(uuid: uuid, fact: fact, payload: Data("{}".utf8), jws: "jws")),
          at: F.date(day), derive: derive(at: day))
      }
    }

    /// The profile as a read at `day` sees it (lapses by the clock are applied).
    func profile(at day: Double) throws -> ProfileRecord {
      if let changed = try PurchaseRecorder(store).rederive(
        appId: appId, profileId: profileId, at: F.date(day), webhooks: [], derive: derive(at: day))
      {
        return changed
      }
      return try store.profile(appId: appId, id: profileId)!
    }
  }

  static func observed(_ profile: ProfileRecord) -> Expected? {
    guard let level = profile.purchases.payload.accessLevels["premium"],
      let subscription = profile.purchases.payload.subscriptions[level.vendorProductId]
    else { return nil }
    #expect(level.isActive == subscription.isActive)
    #expect(level.willRenew == subscription.willRenew)
    return Expected(
      state: subscription.state, isActive: level.isActive, willRenew: level.willRenew, product: level.vendorProductId,
      billingIssue: level.billingIssueDetectedAt != nil, expirationReason: subscription.expirationReason,
      unsubscribed: level.unsubscribedAt != nil, isRefund: level.isRefund)
  }

  @Test("each sequence moves the subscription as Apple describes", arguments: cases, StoreFactory.available)
  func sequence(_ scenario: Case, factory: StoreFactory) throws {
    let ledger = try Ledger(factory)
    defer { ledger.store.close() }
    var version: Int64 = 1
    for (index, (step, day, expected)) in scenario.script.enumerated() {
      try ledger.apply(step, at: day - 0.5)
      let profile = try ledger.profile(at: day)
      #expect(Self.observed(profile) == expected, "step \(index) at day \(day)")
      #expect(profile.version >= version, "versions never go back")
      version = profile.version
    }
  }

  @Test("out-of-order delivery ends where orderly delivery ends", arguments: StoreFactory.available)
  func outOfOrder(factory: StoreFactory) throws {
    let orderly = try Ledger(factory)
    let shuffled = try Ledger(factory)
    defer {
      orderly.store.close()
      shuffled.store.close()
    }
    let steps: [Step] = [.sdk(Self.initial), Self.renewal, Self.failGrace, Self.recovery]
    for step in steps { try orderly.apply(step, at: 63) }
    for step in [Self.recovery, Self.failGrace, .sdk(Self.initial), Self.renewal] { try shuffled.apply(step, at: 63) }
    let expected = try orderly.profile(at: 63)
    #expect(try shuffled.profile(at: 63).purchases == expected.purchases)
    #expect(Self.observed(expected) == Self.active())
    // Arriving last, the failure (signed before the recovery) does not bring the billing issue back.
    let late = try Ledger(factory)
    defer { late.store.close() }
    for step in [.sdk(Self.initial), Self.renewal, Self.recovery, Self.failGrace] { try late.apply(step, at: 63) }
    #expect(try late.profile(at: 63).purchases == expected.purchases)
  }

  @Test("a duplicate notification changes nothing and says so", arguments: StoreFactory.available)
  func duplicates(factory: StoreFactory) throws {
    let ledger = try Ledger(factory)
    defer { ledger.store.close() }
    try ledger.apply(.sdk(Self.initial), at: 1)
    #expect(try ledger.apply(Self.renewal, at: 31).duplicate == false)
    let before = try ledger.profile(at: 31)
    let again = try ledger.apply(Self.renewal, at: 31)
    #expect(again.duplicate)
    #expect(again.changed.isEmpty)
    #expect(try ledger.profile(at: 31) == before)
    // The same transaction sent again by the SDK is stored once.
    let resent = try ledger.apply(.sdk(Self.initial), at: 31)
    #expect(resent.changed.isEmpty)
    #expect(try ledger.store.transactions(appId: ledger.appId, profileId: ledger.profileId).count == 2)
  }

  @Test("non-consumables are lifetime until refunded; consumables unlock nothing; family sharing is marked")
  func otherProducts() throws {
    let history = PurchaseHistory(transactions: [
      F.transaction(
        "2000", original: "2000", product: "pro_lifetime", purchased: 0, type: TransactionPayload.nonConsumable),
      F.transaction("3000", original: "3000", product: "coins_100", purchased: 1, type: TransactionPayload.consumable),
    ])
    let purchases = PurchaseDerivation.derive(history, levels: F.levels, now: F.date(500))
    let premium = try #require(purchases.payload.accessLevels["premium"])
    #expect(premium.isActive && premium.isLifetime && premium.expiresAt == nil)
    #expect(purchases.payload.accessLevels["coins"] == nil)
    #expect(purchases.payload.nonSubscriptions["coins_100"]?.first?.isConsumable == true)
    #expect(purchases.purchaseCount == 2)
    #expect(purchases.primarySubscription == nil)

    var refunded = history
    refunded.transactions[0] = F.transaction(
      "2000", original: "2000", product: "pro_lifetime", purchased: 0, signed: 3,
      type: TransactionPayload.nonConsumable,
      revoked: 3)
    let after = PurchaseDerivation.derive(refunded, levels: F.levels, now: F.date(500))
    #expect(after.payload.accessLevels["premium"]?.isActive == false)
    #expect(after.payload.accessLevels["premium"]?.isRefund == true)

    let shared = PurchaseDerivation.derive(
      PurchaseHistory(transactions: [
        F.transaction("4000", original: "4000", purchased: 0, expires: 30, ownership: "FAMILY_SHARED")
      ]), levels: F.levels, now: F.date(1))
    #expect(shared.payload.subscriptions["pro_monthly"]?.isFamilyShared == true)
    #expect(shared.payload.accessLevels["premium"]?.isActive == true)
  }

  @Test("a free trial is reported as the active introductory offer")
  func trial() {
    let purchases = PurchaseDerivation.derive(
      PurchaseHistory(transactions: [
        F.transaction("5000", original: "5000", purchased: 0, expires: 7, offerType: 1, discount: "FREE_TRIAL")
      ]), levels: F.levels, now: F.date(1))
    #expect(purchases.primarySubscription?.isTrial == true)
    #expect(purchases.payload.accessLevels["premium"]?.activeIntroductoryOfferType == "free_trial")
    #expect(purchases.nextChangeAt == F.date(7))
  }
}
