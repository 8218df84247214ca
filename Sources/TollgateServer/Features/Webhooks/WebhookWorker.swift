import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Sends one webhook request; `URLSessionWebhookSender` in the server, fakes where a test
/// needs no network.
public protocol WebhookSending: Sendable {
  /// POSTs `body`; the HTTP status, or an error when no answer came back.
  func post(_ url: URL, body: Data, headers: [String: String], timeout: TimeInterval) async -> (
    status: Int?, error: String?
  )
}

/// Webhook requests over URLSession.
public struct URLSessionWebhookSender: WebhookSending {
  public init() {}

  public func post(_ url: URL, body: Data, headers: [String: String], timeout: TimeInterval) async -> (
    status: Int?, error: String?
  ) {
    var request = URLRequest(url: url, timeoutInterval: timeout)
    request.httpMethod = "POST"
    request.httpBody = body
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    do {
      let (_, response) = try await Self.session.data(for: request)
      return ((response as? HTTPURLResponse)?.statusCode, nil)
    } catch {
      return (nil, "\(error)")
    }
  }

  static let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    return URLSession(configuration: configuration)
  }()
}

/// Delivers the webhook outbox: at least once (a delivery is marked delivered only after a
/// 2xx), in order per webhook and profile, signed, retried with exponential back-off
/// (30 s doubling to at most 6 h) until 72 h after the event, then parked. A lease keeps
/// other workers — other instances on PostgreSQL — off a delivery in flight; a worker that
/// dies mid-delivery leaves it to be sent again once the lease ends.
public final class WebhookWorker: Sendable {
  /// How long a claimed delivery stays invisible to other workers.
  static let lease: TimeInterval = 60
  /// How long the receiver has to answer.
  static let timeout: TimeInterval = 10
  /// Deliveries sent at once, at most.
  static let concurrency = 8

  let outbox: any WebhookOutboxRepository
  let time: any TimeSource
  let logger: Logger
  let secrets: SecretBox?
  let sender: any WebhookSending
  let webhooks: @Sendable (Int64) -> [WebhookConfig]
  private let loop = BackgroundPasses()
  private let counts = Mutex<[String: Int]>([:])

  public init(
    outbox: any WebhookOutboxRepository, time: any TimeSource, logger: Logger, secrets: SecretBox?,
    sender: any WebhookSending = URLSessionWebhookSender(), webhooks: @escaping @Sendable (Int64) -> [WebhookConfig]
  ) {
    self.outbox = outbox
    self.time = time
    self.logger = logger
    self.secrets = secrets
    self.sender = sender
    self.webhooks = webhooks
    loop.bind { [weak self] in await self?.processDue() ?? 0 }
  }

  /// The wait before attempt `attempts + 1`.
  static func backoff(afterAttempts attempts: Int64) -> TimeInterval {
    min(30 * pow(2, Double(max(0, attempts - 1))), 6 * 3600)
  }

  /// `Tollgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
  public static func signature(secret: String, timestamp: Int64, body: Data) -> String {
    "t=\(timestamp),v1=\(Digest.hmacSHA256Hex(key: secret, message: Data("\(timestamp).".utf8) + body))"
  }

  /// One pass: claims due deliveries and sends them. Returns how many it handled.
  @discardableResult
  public func processDue() async -> Int {
    let due: [WebhookDelivery]
    do {
      due = try outbox.claimWebhookDeliveries(now: time.now(), lease: Self.lease, limit: Self.concurrency)
    } catch {
      logger.error("webhooks: cannot claim deliveries: \(error)")
      return 0
    }
    await withTaskGroup(of: Void.self) { group in
      for delivery in due { group.addTask { await self.deliver(delivery) } }
    }
    return due.count
  }

  private func deliver(_ delivery: WebhookDelivery) async {
    let outcome = await attempt(delivery)
    let label: String
    switch outcome {
    case .delivered: label = "delivered"
    case .retry: label = "retry"
    case .parked: label = "parked"
    }
    counts.withLock { $0[label, default: 0] += 1 }
    logger.info("webhook \(delivery.webhookId): \(delivery.eventType) \(delivery.eventId) → \(label)")
    do {
      try outbox.finishWebhookDelivery(id: delivery.id, outcome, at: time.now())
    } catch {
      // The lease ends and the delivery is sent again: at least once.
      logger.error("webhooks: cannot record delivery \(delivery.id): \(error)")
    }
  }

  private func attempt(_ delivery: WebhookDelivery) async -> WebhookAttemptOutcome {
    guard let webhook = webhooks(delivery.appId).first(where: { $0.id == delivery.webhookId }) else {
      return .parked(status: nil, error: "webhook \(delivery.webhookId) is no longer configured")
    }
    guard let secrets, let secret = try? outbox.webhookSecret(appId: delivery.appId, id: webhook.id, box: secrets)
    else {
      return failure(
        delivery, status: nil, error: "no signing secret for webhook \(webhook.id) (check the secrets key)")
    }
    let body = Data(delivery.body.utf8)
    let timestamp = Int64(time.now().timeIntervalSince1970)
    let (status, error) = await sender.post(
      webhook.url, body: body,
      headers: [
        "Content-Type": "application/json", "User-Agent": "Tollgate-Webhooks/1",
        "Tollgate-Signature": Self.signature(secret: secret, timestamp: timestamp, body: body),
        "Tollgate-Event-Id": delivery.eventId, "Tollgate-Event-Type": delivery.eventType,
      ], timeout: Self.timeout)
    if let status, (200..<300).contains(status) { return .delivered(status: status) }
    return failure(delivery, status: status, error: error ?? "HTTP \(status ?? 0)")
  }

  private func failure(_ delivery: WebhookDelivery, status: Int?, error: String) -> WebhookAttemptOutcome {
    let next = time.now().addingTimeInterval(Self.backoff(afterAttempts: delivery.attempts + 1))
    let deadline = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(delivery.deadline)) ?? next
    if next > deadline { return .parked(status: status, error: error) }
    return .retry(at: next, status: status, error: error)
  }

  public func start(interval: TimeInterval = 0.5) { loop.start(interval: interval) }
  public func kick() { loop.kick() }
  public func waitUntilIdle(timeout: TimeInterval = 10) { loop.waitUntilIdle(timeout: timeout) }
  public func stop() { loop.stop() }

  /// Attempts so far by outcome, for `/metrics`.
  public var outcomeCounts: [String: Int] { counts.withLock { $0 } }
}
