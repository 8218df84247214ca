import Dispatch
import Foundation
import Testing
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport
import TollgateTestSupport

@testable import Adapty

/// Purchases from the SDK's static API through a fake App Store (transactions signed like
/// Apple's) to the live server and back onto the profile. Part of the serialized end-to-end
/// suite: the static API is process-wide.
extension EndToEndTests {
  /// A flow's products: the sample `standard` flow sells pro_monthly and pro_annual.
  func standardProducts() async throws -> [AdaptyPaywallProduct] {
    let flow = try await Adapty.getFlow(placementId: "settings_upgrade")
    return try await Adapty.getPaywallProducts(paywall: flow)
  }

  @Test("a purchase unlocks premium on the delegate; an expiry notification locks it on the next fetch")
  func purchaseAndExpiry() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let store = FakeStoreKit(signer: live.signer)
    let observer = Observer()
    Adapty.delegate = observer
    try await Adapty.activate(with: live.configuration(store: store))

    let products = try await standardProducts()
    #expect(products.map(\.vendorProductId) == ["pro_monthly", "pro_annual"])
    #expect(products[0].variationId == "settings_upgrade:default:standard")
    #expect(products[0].paywallName == "Standard paywall")
    #expect(products[0].subscriptionPeriod == AdaptySubscriptionPeriod(unit: .day, numberOfUnits: 30))

    let result = try await Adapty.makePurchase(product: products[0])
    guard case .success(let profile, let transaction) = result else {
      Issue.record("expected success, got \(result)")
      await quitApp()
      return
    }
    #expect(profile.accessLevels["premium"]?.isActive == true)
    #expect(profile.subscriptions["pro_monthly"]?.state == "active")
    #expect(store.finished == [transaction.transactionId])
    let delivered = await Adapty.profileUpdates.first { $0.accessLevels["premium"]?.isActive == true }
    #expect(delivered != nil)
    #expect(observer.profiles.last?.accessLevels["premium"]?.isActive == true)
    let (_, admin) = try await live.admin("v1/admin/profiles/\(profile.profileId)")
    #expect(admin?.objectValue?["access_levels"]?.objectValue?["premium"] != nil)

    // Apple says the subscription expired (the user had turned auto-renew off).
    let status = try await live.notify([
      "notificationType": "EXPIRED", "subtype": "VOLUNTARY", "notificationUUID": UUID().uuidString,
      "data": [
        "bundleId": "com.example.tollgate", "environment": "Sandbox",
        "signedTransactionInfo": [
          "transactionId": transaction.transactionId, "originalTransactionId": transaction.originalTransactionId,
          "bundleId": "com.example.tollgate", "productId": "pro_monthly", "purchaseDate": 1_000,
          "expiresDate": 2_000, "type": "Auto-Renewable Subscription", "environment": "Sandbox",
        ],
        "signedRenewalInfo": [
          "originalTransactionId": transaction.originalTransactionId, "autoRenewStatus": 0, "expirationIntent": 1,
          "environment": "Sandbox",
        ],
      ],
    ])
    #expect(status == 200)
    let fetched = try await Adapty.getProfile()
    #expect(fetched.accessLevels["premium"]?.isActive == false)
    #expect(fetched.subscriptions["pro_monthly"]?.expirationReason == "voluntary")
    #expect(observer.profiles.last?.accessLevels["premium"]?.isActive == false)
    await quitApp()
  }

  @Test("a purchase whose answer never came is sent again at the next launch and finished exactly once")
  func interruptedSend() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let store = FakeStoreKit(signer: live.signer)
    // First launch: every transaction send is lost.
    let dropping = live.builder(store: store)
    dropping.dependencies.transport = TransactionDroppingTransport(inner: URLSessionTransport(baseURL: live.baseURL))
    try await Adapty.activate(with: dropping.build())
    let products = try await standardProducts()
    do {
      _ = try await Adapty.makePurchase(product: products[1])
      Issue.record("the send was dropped: makePurchase must throw")
    } catch {
      #expect(error.adaptyErrorCode == .networkFailed)
    }
    #expect(store.finished.isEmpty, "never finished before the server has it")
    await quitApp()

    // Next launch, network back: the pending transaction goes out and is finished once.
    try await Adapty.activate(with: live.configuration(store: store))
    let unlocked = await Adapty.profileUpdates.first { $0.accessLevels["premium"]?.isActive == true }
    #expect(unlocked?.accessLevels["premium"]?.vendorProductId == "pro_annual")
    let runtime = try await Facade.shared.runtime()
    await runtime.purchases.drained()
    #expect(await runtime.purchases.pendingCount == 0)
    #expect(store.finished.count == 1)
    await quitApp()

    // A third launch sends nothing again.
    try await Adapty.activate(with: live.configuration(store: store))
    #expect(await (try Facade.shared.runtime()).purchases.pendingCount == 0)
    #expect(store.finished.count == 1)
    await quitApp()
  }

  @Test("the same customer on a second device gets the same access; a restore transfers it")
  func secondDevice() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let store = FakeStoreKit(signer: live.signer)
    try await Adapty.activate(with: live.configuration(store: store, customerUserId: "customer-7"))
    let bought = try await Adapty.makePurchase(product: try await standardProducts()[0])
    let firstProfile = try #require(bought.profile)
    #expect(firstProfile.accessLevels["premium"]?.isActive == true)
    await quitApp()

    // Another device, same customer: the server answers with the customer's profile.
    let device2 = live.directory.appendingPathComponent("sdk-device-2")
    try await Adapty.activate(with: live.configuration(storage: device2, store: store, customerUserId: "customer-7"))
    let other = try await Adapty.getProfile()
    #expect(other.profileId == firstProfile.profileId)
    #expect(other.accessLevels["premium"]?.isActive == true)
    await quitApp()

    // A third, anonymous install restores: the subscription moves to it (transfer).
    let device3 = live.directory.appendingPathComponent("sdk-device-3")
    try await Adapty.activate(with: live.configuration(storage: device3, store: store))
    let restored = try await Adapty.restorePurchases()
    #expect(restored.profileId != firstProfile.profileId)
    #expect(restored.accessLevels["premium"]?.isActive == true)
    let (_, previous) = try await live.admin("v1/admin/profiles/\(firstProfile.profileId)")
    // The first profile no longer owns the subscription: it has no premium access.
    #expect(previous?.objectValue?["id"] == .string(firstProfile.profileId))
    #expect(previous?.objectValue?["access_levels"]?.objectValue?["premium"] == nil)
    await quitApp()
  }

  @Test("renewals from Transaction.updates reach the server; cancel, pending, refusals and errors have their codes")
  func updatesAndOutcomes() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let store = FakeStoreKit(signer: live.signer)
    try await Adapty.activate(with: live.configuration(store: store))
    let products = try await standardProducts()

    store.next(.cancel)
    #expect(try await Adapty.makePurchase(product: products[0]).isPurchaseCancelled)
    store.next(.pending)
    #expect(try await Adapty.makePurchase(product: products[0]).isPurchasePending)
    store.next(.fail)
    await #expect(throws: AdaptyError.self) { try await Adapty.makePurchase(product: products[0]) }
    #expect(store.finished.isEmpty)

    // Ask to Buy approved later: the transaction arrives through updates.
    let profileId = try await Adapty.getProfile().profileId
    let approved = try store.makeTransaction(productId: "pro_monthly", token: UUID(uuidString: profileId))
    await store.deliverUpdate(approved)
    let unlocked = await Adapty.profileUpdates.first { $0.accessLevels["premium"]?.isActive == true }
    #expect(unlocked != nil)
    await (try Facade.shared.runtime()).purchases.drained()
    #expect(store.finished == [approved.id])
    await quitApp()

    // A transaction for another app is refused by the server: 1006, not finished, not retried.
    let foreign = FakeStoreKit(signer: live.signer, bundleId: "com.example.other")
    try await Adapty.activate(with: live.configuration(store: foreign))
    let foreignProducts = try await standardProducts()
    do {
      _ = try await Adapty.makePurchase(product: foreignProducts[0])
      Issue.record("a foreign transaction must be refused")
    } catch {
      #expect(error.adaptyErrorCode == .productPurchaseFailed)
    }
    #expect(foreign.finished.isEmpty)
    #expect(await (try Facade.shared.runtime()).purchases.pendingCount == 0)
    await quitApp()

    // No store on this platform: 1003 to buy, 1002 for products.
    try await Adapty.activate(with: live.configuration())
    let flow = try await Adapty.getFlow(placementId: "settings_upgrade")
    do {
      _ = try await Adapty.getPaywallProducts(paywall: flow)
    } catch {
      #expect(error.adaptyErrorCode == .productRequestFailed)
    }
    do {
      _ = try await Adapty.restorePurchases()
    } catch {
      #expect(error.adaptyErrorCode == .cantMakePayments)
    }
    await quitApp()
  }
}

extension EndToEndTests {
  @Test(
    "an app SIGKILLed after the server stored its purchase but before the answer: the next launch sends it again, finishes it once"
  )
  func killedBeforeTheAnswer() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let signerDirectory = live.directory.appendingPathComponent("storekit")
    try live.signer.save(to: signerDirectory)
    let child = try ChildProcess(
      builtProducts.appendingPathComponent("tollgate-purchase-child").path,
      [live.baseURL.absoluteString, live.keys.publicKey, live.sdkDirectory.path, signerDirectory.path])
    // Blocking reads happen on a Dispatch thread, not a Swift concurrency one.
    let (log, ending) = await withCheckedContinuation {
      (continuation: CheckedContinuation<(String, ChildProcess.Ending), Never>) in
      DispatchQueue.global().async {
        let log = child.readOutput(until: "server-has-it")
        continuation.resume(returning: (log, child.kill(SIGKILL)))
      }
    }
    #expect(log.contains("server-has-it 200"), "\(log)")
    #expect(ending == .signal(SIGKILL))

    // What the killed app left: the transaction, unacknowledged, on disk.
    let pendingFile = live.sdkDirectory.appendingPathComponent("transactions.json")
    let left = try JSONDecoder().decode([PendingTransaction].self, from: Data(contentsOf: pendingFile))
    #expect(left.count == 1)
    let transactionId = try #require(left.first?.transaction.id)

    // The next launch (StoreKit would still hold the transaction unfinished).
    let store = FakeStoreKit(signer: live.signer)
    try await Adapty.activate(with: live.configuration(store: store))
    let unlocked = await Adapty.profileUpdates.first { $0.accessLevels["premium"]?.isActive == true }
    let runtime = try await Facade.shared.runtime()
    await runtime.purchases.drained()
    #expect(store.finished == [transactionId])
    #expect(await runtime.purchases.pendingCount == 0)
    let profileId = try #require(unlocked?.profileId)
    #expect(try live.store.transactions(appId: live.keys.app.id, profileId: profileId).count == 1)
    await quitApp()
  }
}

extension EndToEndTests {
  @Test(
    "a subscriber from before Tollgate counts from the first launch, credited to no paywall; later launches send only what is new"
  )
  func existingSubscriber() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let store = FakeStoreKit(signer: live.signer)
    let before = try store.makeTransaction(
      productId: "pro_annual", token: nil, purchased: Date().addingTimeInterval(-100 * 86_400))
    store.setEntitlements([before])
    try await Adapty.activate(with: live.configuration(store: store))
    // No restore tapped: the entitlement reaches the server at activation.
    let unlocked = await Adapty.profileUpdates.first { $0.accessLevels["premium"]?.isActive == true }
    let profileId = try #require(unlocked?.profileId)
    await (try Facade.shared.runtime()).purchases.drained()
    #expect(store.finished == [before.id])
    let (_, activity) = try await live.admin("v1/admin/profiles/\(profileId)/activity")
    let transactions = activity?.objectValue?["transactions"]?.arrayValue ?? []
    #expect(transactions.count == 1)
    #expect(transactions.first?.objectValue?["variation_id"] == nil, "a migrated subscription is no conversion")
    await quitApp()

    // The next launch lists the same entitlement: nothing is sent again.
    let sent = try await transactionRequests(live)
    try await Adapty.activate(with: live.configuration(store: store))
    await (try Facade.shared.runtime()).purchases.drained()
    #expect(try await transactionRequests(live) == sent)
    await quitApp()

    // A renewal made while the app was closed shows up among the entitlements: only it is sent.
    let renewal = try store.makeTransaction(
      productId: "pro_annual", token: nil, purchased: Date().addingTimeInterval(-86_400), original: before.id)
    store.setEntitlements([renewal])
    try await Adapty.activate(with: live.configuration(store: store))
    await (try Facade.shared.runtime()).purchases.drained()
    #expect(try await transactionRequests(live) == sent + 1)
    #expect(store.finished == [before.id, renewal.id])
    await quitApp()
  }

  /// How many transaction requests the server answered (its `/metrics`).
  func transactionRequests(_ live: LiveServer) async throws -> Int {
    try await live.metrics().split(separator: "\n").filter {
      $0.hasPrefix("tollgate_http_requests_total") && $0.contains("/transactions")
    }.reduce(0) { $0 + (Int($1.split(separator: " ").last ?? "") ?? 0) }
  }
}

extension EndToEndTests {
  @Test(
    "observer mode: the SDK buys nothing, listens to no updates, finishes nothing; what the app reports reaches the server with its variation"
  )
  func observerMode() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let store = FakeStoreKit(signer: live.signer)
    try await Adapty.activate(with: live.builder(store: store).with(observerMode: true).build())
    let products = try await standardProducts()
    do {
      _ = try await Adapty.makePurchase(product: products[0])
      Issue.record("makePurchase must refuse in observer mode")
    } catch {
      #expect(error.adaptyErrorCode == .cantMakePayments)
    }
    #expect(!store.listensToUpdates, "the app's own code listens to Transaction.updates")
    // The app bought with its own StoreKit code and reports it.
    let profileId = try await Adapty.getProfile().profileId
    let bought = try store.makeTransaction(productId: "pro_monthly", token: UUID(uuidString: profileId))
    try await Adapty.reportTransaction(bought, withVariationId: products[0].variationId)
    let profile = try await Adapty.getProfile()
    #expect(profile.accessLevels["premium"]?.isActive == true)
    let stored = try live.store.transactions(appId: live.keys.app.id, profileId: profileId)
    #expect(stored.map(\.creditedVariationId) == [products[0].variationId])
    await (try Facade.shared.runtime()).purchases.drained()
    #expect(store.finished.isEmpty, "the app finishes its own transactions")
    #expect(await (try Facade.shared.runtime()).purchases.pendingCount == 0)
    await quitApp()
  }
}

extension EndToEndTests {
  @Test(
    "the completion-handler activate starts at once: a call right after waits for it; the handler hears nil, a second activation activateOnceError"
  )
  func completionActivate() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let queue = DispatchQueue(label: "callbacks")
    let configuration = live.builder().with(callbackDispatchQueue: queue).build()
    let (first, answered) = AsyncStream<Int?>.makeStream()
    Adapty.activate(with: configuration) { error in
      answered.yield(error?.errorCode)
      answered.finish()
    }
    // No await between: the flow request waits for the activation the handler form began.
    let flow = try await Adapty.getFlow(placementId: "settings_upgrade")
    #expect(flow.placement.id == "settings_upgrade")
    let second = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
      Adapty.activate(with: configuration) { error in continuation.resume(returning: error?.errorCode) }
    }
    #expect(second == 3005)
    var heard = first.makeAsyncIterator()
    let firstAnswer = await heard.next()
    #expect(firstAnswer == .some(nil), "the first activation's handler hears no error")
    await quitApp()
  }
}
