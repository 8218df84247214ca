import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Answers Apple's refund requests: each pending `CONSUMPTION_REQUEST` gets Send Consumption
/// Information with the body the configuration decides (never without the customer's
/// consent), durably — a request is leased, retried on Apple's faults and rate limits, and
/// given up only when Apple's 12 hours have passed (`expired`) or Apple refuses the body
/// (`failed`). The later `REFUND` or `REFUND_DECLINED` notification closes it.
public final class RefundRequestAnswerer: Sendable {
  let store: any AppStoreServerRepository
  let purchases: any PurchaseRepository
  let api: any AppStoreServerAPI
  let secrets: SecretBox?
  let time: any TimeSource
  let logger: Logger
  let settings: @Sendable (Int64) -> AppStoreSettings?
  /// How long a claimed request is another instance's no-go.
  let lease: TimeInterval = 120
  /// The first back-off after a fault; it doubles, and never passes the deadline.
  let firstRetry: TimeInterval
  private let loop = BackgroundPasses()

  /// An answerer; `settings` reads the app's `app_store` configuration.
  public init(
    store: any AppStoreServerRepository, purchases: any PurchaseRepository, api: any AppStoreServerAPI,
    secrets: SecretBox?, time: any TimeSource, logger: Logger, firstRetry: TimeInterval = 60,
    settings: @escaping @Sendable (Int64) -> AppStoreSettings?
  ) {
    self.store = store
    self.purchases = purchases
    self.api = api
    self.secrets = secrets
    self.time = time
    self.logger = logger
    self.firstRetry = firstRetry
    self.settings = settings
    loop.bind { [weak self] in await self?.processDue() ?? 0 }
  }

  /// Starts passes every `interval` seconds (and at once after `kick()`).
  public func start(interval: TimeInterval = 15) { loop.start(interval: interval) }

  /// Runs a pass now (a request arrived).
  public func kick() { loop.kick() }

  /// Stops the passes.
  public func stop() { loop.stop() }

  /// Waits (up to `timeout` seconds) until no pass started by `kick()` is running (tests).
  public func waitUntilIdle(timeout: TimeInterval = 10) { loop.waitUntilIdle(timeout: timeout) }

  /// Answers every request due now, one after the other; returns how many it tried.
  @discardableResult
  public func processDue() async -> Int {
    var tried = 0
    while tried < 64 {
      let now = time.now()
      let request: StoredRefundRequest?
      do {
        request = try store.claimRefundRequest(now: now, leaseUntil: now.addingTimeInterval(lease))
      } catch {
        logger.error("refund requests: cannot claim one: \(error)")
        return tried
      }
      guard let request else { return tried }
      let outcome = await answer(request)
      do {
        try store.finishRefundRequest(
          appId: request.appId, notificationUUID: request.notificationUUID, outcome, at: time.now())
      } catch {
        logger.error("refund requests: cannot record the answer to \(request.notificationUUID): \(error)")
      }
      tried += 1
    }
    return tried
  }

  /// One attempt: what Apple answered, as the request's next state.
  func answer(_ request: StoredRefundRequest) async -> RefundAnswerOutcome {
    let now = time.now()
    let label =
      "refund request \(request.notificationUUID) (app \(request.appId), transaction \(request.transactionId))"
    let deadline = Date(timeIntervalSince1970: request.requestedAt + RefundRequestAnswer.deadline)
    guard now < deadline else {
      logger.warn("\(label): Apple's 12 hours passed without an answer")
      return .stopped(status: "expired", error: request.lastError ?? "Apple's 12-hour deadline passed")
    }
    let backoff = min(deadline.timeIntervalSince(now), firstRetry * pow(2, Double(min(request.attempts - 1, 10))))
    let configured = settings(request.appId)
    let owners: [String]
    do {
      owners = try purchases.purchases(appId: request.appId) { try $0.owners(of: request.originalTransactionId) }
    } catch {
      return .retry(next: now.addingTimeInterval(backoff), error: "cannot read the purchase's owners: \(error)")
    }
    let body: ConsumptionInformation
    switch RefundRequestAnswer.decide(
      settings: configured?.refundRequests, productType: request.productType, delivered: !owners.isEmpty)
    {
    case .notSent(let why):
      // The configuration changed since the request arrived: nothing goes without consent.
      return .stopped(status: "not_sent", error: why)
    case .send(let information):
      body = information
    }
    let opened: AppStoreServerKeys.Opened
    do {
      opened = try AppStoreServerKeys(store: store, secrets: secrets).open(appId: request.appId, settings: configured)
    } catch {
      // A key may still be uploaded within the deadline.
      let message =
        switch error {
        case .notConfigured(let message), .credentials(let message): message
        }
      logger.warn("\(label): cannot call Apple: \(message)")
      return .retry(next: now.addingTimeInterval(backoff), error: message)
    }
    do {
      try await api.sendConsumptionInformation(
        environment: request.environment, transactionId: request.transactionId, body,
        token: try opened.token(now: time.now()))
      logger.info("\(label): consumption information sent")
      return .answered(body: String(decoding: WireCoding.encode(body), as: UTF8.self))
    } catch let error as AppStoreServerAPIError {
      switch error {
      case .rateLimited(let until, let message):
        return .retry(
          next: min(deadline, until.map { max($0, now) } ?? now.addingTimeInterval(backoff)), error: message)
      case .unavailable(let message), .unexpected(let message), .credentials(let message):
        logger.warn("\(label): \(message); next try in \(Int(backoff)) s")
        return .retry(next: now.addingTimeInterval(backoff), error: message)
      case .rejected(_, let message):
        logger.warn("\(label): Apple refused the answer: \(message)")
        return .stopped(status: "failed", error: message)
      }
    } catch {
      return .retry(next: now.addingTimeInterval(backoff), error: "\(error)")
    }
  }
}
