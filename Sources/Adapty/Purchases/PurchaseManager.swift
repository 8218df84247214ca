import Foundation
import TollgateAPI

/// A store transaction the server has not acknowledged yet. On disk before it is sent, so a
/// crash or a dead network never loses a purchase.
struct PendingTransaction: Codable, Sendable, Hashable {
  var transaction: AdaptyStoreTransaction
  /// The flow variation that sold it.
  var variationId: String?
  /// The profile it was bought for; nil: the current profile (renewals, restores).
  var profileId: String?
  /// Already owned when this install first listed the store's entitlements (a subscriber from
  /// before Tollgate): the server credits it to no paywall. nil: false (files of older versions).
  var owned: Bool?
}

/// Products, purchases and restores. Every transaction goes to the server first and is
/// finished with the store only once the server has it: a transaction the server never
/// acknowledged stays unfinished, so the store hands it over again. Sends that fail are
/// retried with back-off, and across launches. In observer mode the app buys and finishes
/// itself: the SDK makes no purchase, listens to no updates, finishes nothing, and sends what
/// the app reports (`reportTransaction`).
actor PurchaseManager {
  /// Waits between failed background sends, in seconds; the last repeats.
  static let backoff: [Double] = [2, 4, 8, 16, 32, 60]

  private let source: (any AdaptyPurchaseSource)?
  private let client: BackendClient
  private let profiles: ProfileManager
  private let store: LocalStore
  private let clock: any SDKClock
  private let observerMode: Bool
  private var pending: [PendingTransaction]
  private var flushing: Task<Void, Never>?

  init(
    source: (any AdaptyPurchaseSource)?, client: BackendClient, profiles: ProfileManager, store: LocalStore,
    clock: any SDKClock, observerMode: Bool = false
  ) {
    self.observerMode = observerMode
    self.source = source
    self.client = client
    self.profiles = profiles
    self.store = store
    self.clock = clock
    pending = store.read([PendingTransaction].self, from: StoredFile.transactions) ?? []
    handedOver = store.read([String].self, from: StoredFile.handedOver) ?? []
  }

  /// Transactions waiting for the server.
  var pendingCount: Int { pending.count }

  /// Listens to the store's transaction updates, resumes sends left by an earlier launch, and
  /// hands over the entitlements the server has not had from this install.
  func start() {
    if !observerMode {
      source?.startUpdates { [weak self] transaction in
        await self?.received(transaction)
      }
    }
    startFlushing()
    handingOver = Task { await self.handOverEntitlements() }
  }

  private var handingOver: Task<Void, Never>?

  /// Transaction ids this install has handed to the server (kept to the latest 500): the
  /// store's entitlements are compared with them at every launch, so an existing subscriber
  /// counts from the first launch and later launches send nothing they sent before.
  private var handedOver: [String]

  /// The store's current entitlements not yet handed over, queued as owned before Tollgate
  /// (credited to no paywall) and sent like any transaction: durably, retried across launches.
  /// A store that cannot list them is tried again at the next launch.
  func handOverEntitlements() async {
    guard let source else { return }
    let entitlements: [AdaptyStoreTransaction]
    do {
      entitlements = try await source.currentEntitlements()
    } catch {
      Log.warn("the App Store did not list current entitlements: \(error); trying again at the next launch")
      return
    }
    let known = Set(handedOver).union(pending.map(\.transaction.id))
    let new = entitlements.filter { !known.contains($0.id) }
    guard !new.isEmpty else { return }
    Log.info("handing \(new.count) existing entitlement(s) to the server")
    for transaction in new { add(PendingTransaction(transaction: transaction, profileId: nil, owned: true)) }
    startFlushing()
  }

  /// Stops retrying; what is pending stays on disk for the next launch.
  func stop() {
    handingOver?.cancel()
    handingOver = nil
    flushing?.cancel()
    flushing = nil
  }

  /// Waits until the entitlements are listed and the background sends end (tests).
  func drained() async {
    await handingOver?.value
    await flushing?.value
  }

  // MARK: Products

  func products(for flow: AdaptyFlow) async throws(AdaptyError) -> [AdaptyPaywallProduct] {
    guard !flow.vendorProductIds.isEmpty else {
      throw AdaptyError(.noProductIDsFound, "Flow \(flow.id) of placement \(flow.placement.id) lists no products.")
    }
    guard let source else {
      throw AdaptyError(.productRequestFailed, "There is no App Store on this platform to ask for products.")
    }
    let found: [AdaptyStoreProduct]
    do {
      found = try await source.products(ids: flow.vendorProductIds)
    } catch {
      throw Self.adaptyError(error, .productRequestFailed, "The App Store did not answer for products")
    }
    let byId = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    let products = flow.vendorProductIds.compactMap { byId[$0] }.enumerated().map {
      FlowProduct($0.element, flow: flow, index: $0.offset) as AdaptyPaywallProduct
    }
    let missing = flow.vendorProductIds.filter { byId[$0] == nil }
    if !missing.isEmpty { Log.warn("products unknown to the App Store: \(missing.joined(separator: ", "))") }
    guard !products.isEmpty else {
      throw AdaptyError(
        .noProductsFound, "The App Store knows none of \(flow.vendorProductIds.joined(separator: ", ")).")
    }
    return products
  }

  // MARK: Purchases

  func purchase(_ product: AdaptyPaywallProduct) async throws(AdaptyError) -> AdaptyPurchaseResult {
    guard !observerMode else {
      throw AdaptyError(
        .cantMakePayments,
        "makePurchase is not allowed in observer mode: buy with your own code and call reportTransaction.")
    }
    guard let source, source.canMakePayments else {
      throw AdaptyError(.cantMakePayments, "In-app purchases are not allowed on this device.")
    }
    let profileId = try await profiles.ensureCreated()
    guard let token = UUID(uuidString: profileId) else {
      throw AdaptyError(.unknown, "The profile id \(profileId) is not a UUID.")
    }
    let outcome: AdaptyStorePurchaseOutcome
    do {
      outcome = try await source.purchase(product.storeProduct, appAccountToken: token)
    } catch {
      throw Self.adaptyError(error, .productPurchaseFailed, "The App Store purchase failed")
    }
    switch outcome {
    case .userCancelled: return .userCancelled
    case .pending: return .pending
    case .success(let transaction):
      let item = PendingTransaction(transaction: transaction, variationId: product.variationId, profileId: profileId)
      let profile = try await deliver(item)
      return .success(profile: profile, transaction: AdaptyPurchasedTransaction(storeTransaction: transaction))
    }
  }

  /// A transaction the app made itself (observer mode, or its own StoreKit code): sent to
  /// the server like a purchase of `variationId`, durably; never finished by the SDK in
  /// observer mode.
  func report(_ transaction: AdaptyStoreTransaction, variationId: String?) async throws(AdaptyError) -> AdaptyProfile {
    let profileId = try await profiles.ensureCreated()
    return try await deliver(
      PendingTransaction(transaction: transaction, variationId: variationId, profileId: profileId))
  }

  /// Asks the store to sync, then hands every current entitlement to the server.
  func restore() async throws(AdaptyError) -> AdaptyProfile {
    guard let source else {
      throw AdaptyError(.cantMakePayments, "There is no App Store on this platform to restore from.")
    }
    do {
      try await source.sync()
    } catch {
      throw Self.adaptyError(error, .productPurchaseFailed, "The App Store could not sync purchases")
    }
    if let profile = try await sendEntitlements() { return profile }
    return try await profiles.refresh()
  }

  /// Hands the store's current entitlements to the server (after a restore, or when the
  /// user changed); nil when there are none.
  @discardableResult
  func sendEntitlements() async throws(AdaptyError) -> AdaptyProfile? {
    guard let source else { return nil }
    let entitlements: [AdaptyStoreTransaction]
    do {
      entitlements = try await source.currentEntitlements()
    } catch {
      throw Self.adaptyError(error, .productPurchaseFailed, "The App Store did not list current entitlements")
    }
    var latest: AdaptyProfile?
    for transaction in entitlements {
      latest = try await deliver(PendingTransaction(transaction: transaction, variationId: nil, profileId: nil))
    }
    return latest
  }

  /// A transaction from the store's updates: stored, then sent in the background.
  private func received(_ transaction: AdaptyStoreTransaction) {
    Log.info("store transaction \(transaction.id) (\(transaction.productId)) received")
    add(PendingTransaction(transaction: transaction, variationId: nil, profileId: nil))
    startFlushing()
  }

  /// Keeps the transaction on disk, sends it once now; a failure leaves it to the retries.
  private func deliver(_ item: PendingTransaction) async throws(AdaptyError) -> AdaptyProfile {
    add(item)
    do {
      return try await send(item)
    } catch {
      if error.adaptyErrorCode != .productPurchaseFailed { startFlushing() }
      throw error
    }
  }

  private func add(_ item: PendingTransaction) {
    if let index = pending.firstIndex(where: { $0.transaction.id == item.transaction.id }) {
      // Keep what the purchase knew (variation, profile) if the update arrives first.
      pending[index].variationId = pending[index].variationId ?? item.variationId
      pending[index].profileId = pending[index].profileId ?? item.profileId
      // Listed as an entitlement while the purchase that made it was finishing: a purchase.
      if item.owned != true { pending[index].owned = nil }
    } else {
      pending.append(item)
    }
    store.write(pending, to: StoredFile.transactions)
  }

  /// Removes the item from the disk, then finishes it with the store: only the call that
  /// removed it finishes, so a transaction is finished once however many sends raced.
  private func acknowledged(_ id: String) async {
    guard pending.contains(where: { $0.transaction.id == id }) else { return }
    pending.removeAll { $0.transaction.id == id }
    store.write(pending, to: StoredFile.transactions)
    if !handedOver.contains(id) {
      handedOver = Array((handedOver + [id]).suffix(500))
      store.write(handedOver, to: StoredFile.handedOver)
    }
    // In observer mode the app finishes its own transactions.
    if !observerMode { await source?.finish(transactionId: id) }
  }

  private func send(_ item: PendingTransaction) async throws(AdaptyError) -> AdaptyProfile {
    let profileId: String
    if let owner = item.profileId { profileId = owner } else { profileId = try await profiles.ensureCreated() }
    let request = TransactionRequest(
      signedTransaction: item.transaction.jws, variationId: item.variationId,
      origin: item.owned == true ? .entitlement : nil)
    let payload: ProfilePayload
    do {
      payload = try await client.sendTransaction(profileId: profileId, request)
    } catch {
      if error.status == 422 {
        // The server will never take it (not Apple's, another app, an environment it refuses):
        // stop sending it; it stays unfinished with the store.
        pending.removeAll { $0.transaction.id == item.transaction.id }
        store.write(pending, to: StoredFile.transactions)
        Log.error("the server refused transaction \(item.transaction.id): \(error.error.message)")
        throw AdaptyError(.productPurchaseFailed, "The server refused the purchase: \(error.error.message)")
      }
      if error.code == .profileNotFound { await profiles.markMissing() }
      throw error.error
    }
    await profiles.accept(payload)
    await acknowledged(item.transaction.id)
    return AdaptyProfile(payload)
  }

  private func startFlushing() {
    guard flushing == nil, !pending.isEmpty else { return }
    flushing = Task { await self.flushLoop() }
  }

  private func flushLoop() async {
    var failures = 0
    while let item = pending.first, !Task.isCancelled {
      do {
        _ = try await send(item)
        failures = 0
      } catch {
        if error.adaptyErrorCode == .productPurchaseFailed { continue }
        let wait = Self.backoff[min(failures, Self.backoff.count - 1)]
        failures += 1
        Log.info("transaction \(item.transaction.id): \(error.message); retrying in \(wait) s")
        do { try await clock.sleep(seconds: wait) } catch { break }
      }
    }
    flushing = nil
  }

  /// The store's error as an `AdaptyError` (glue throws `AdaptyError` with StoreKit's codes).
  static func adaptyError(_ error: any Error, _ code: AdaptyError.ErrorCode, _ context: String) -> AdaptyError {
    if let adapty = error as? AdaptyError { return adapty }
    return AdaptyError(code, "\(context): \(error)")
  }
}
