import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Apple's refund requests over a window: how many were answered, refunded, declined, by
/// reason and by product, and each request with what was sent.
public struct RefundRequestReport: Codable, Sendable, Hashable {
  /// Counts of one group of requests.
  public struct Counts: Codable, Sendable, Hashable {
    /// The reason or product id (absent in the totals).
    public var key: String?
    public var requests = 0
    /// Consumption information sent and accepted.
    public var answered = 0
    /// Recorded, never sent (off, or no consent).
    public var notSent = 0
    /// Waiting for an answer to go out.
    public var pending = 0
    /// Apple's 12 hours passed, or Apple refused the answer.
    public var expired = 0
    public var failed = 0
    /// How Apple decided; `open`: not yet.
    public var refunded = 0
    public var declined = 0
    public var open = 0

    enum CodingKeys: String, CodingKey {
      case key, requests, answered, pending, expired, failed, refunded, declined, open
      case notSent = "not_sent"
    }

    mutating func add(_ request: StoredRefundRequest) {
      requests += 1
      switch request.status {
      case "answered": answered += 1
      case "not_sent": notSent += 1
      case "pending": pending += 1
      case "expired": expired += 1
      default: failed += 1
      }
      switch request.outcome {
      case "refunded"?: refunded += 1
      case "declined"?: declined += 1
      default: open += 1
      }
    }
  }

  /// One request.
  public struct Request: Codable, Sendable, Hashable {
    public var notificationUUID: String
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var environment: String
    public var reason: String?
    public var requestedAt: String
    /// `pending`, `answered`, `not_sent`, `expired`, `failed`.
    public var status: String
    public var attempts: Int64
    public var answeredAt: String?
    /// The body sent to Apple.
    public var answer: JSONValue?
    /// Why it was not sent, or the last failure.
    public var lastError: String?
    /// `refunded`, `declined`, or nil while Apple has not decided.
    public var outcome: String?
    public var closedAt: String?
    public var owners: [String]

    enum CodingKeys: String, CodingKey {
      case environment, reason, status, attempts, answer, outcome, owners
      case notificationUUID = "notification_uuid"
      case transactionId = "transaction_id"
      case originalTransactionId = "original_transaction_id"
      case productId = "product_id"
      case requestedAt = "requested_at"
      case answeredAt = "answered_at"
      case lastError = "last_error"
      case closedAt = "closed_at"
    }
  }

  public var from: String
  public var to: String
  public var totals: Counts
  public var byReason: [Counts]
  public var byProduct: [Counts]
  /// The latest 200, newest first.
  public var requests: [Request]

  enum CodingKeys: String, CodingKey {
    case from, to, totals, requests
    case byReason = "by_reason"
    case byProduct = "by_product"
  }

  init(from: Date, to: Date, _ stored: [StoredRefundRequest]) {
    func iso(_ seconds: Double) -> String { Timestamp.string(Date(timeIntervalSince1970: seconds)) }
    self.from = Timestamp.string(from)
    self.to = Timestamp.string(to)
    var totals = Counts()
    var reasons: [String: Counts] = [:]
    var products: [String: Counts] = [:]
    for request in stored {
      totals.add(request)
      let reason = request.reason ?? "UNSPECIFIED"
      reasons[reason, default: Counts(key: reason)].add(request)
      products[request.productId, default: Counts(key: request.productId)].add(request)
    }
    self.totals = totals
    byReason = reasons.values.sorted { ($0.requests, $1.key ?? "") > ($1.requests, $0.key ?? "") }
    byProduct = products.values.sorted { ($0.requests, $1.key ?? "") > ($1.requests, $0.key ?? "") }
    requests = stored.suffix(200).reversed().map { request in
      Request(
        notificationUUID: request.notificationUUID, transactionId: request.transactionId,
        originalTransactionId: request.originalTransactionId, productId: request.productId,
        environment: request.environment, reason: request.reason, requestedAt: iso(request.requestedAt),
        status: request.status, attempts: request.attempts, answeredAt: request.answeredAt.map(iso),
        answer: request.answer.flatMap { try? WireCoding.decoder.decode(JSONValue.self, from: Data($0.utf8)) },
        lastError: request.lastError, outcome: request.outcome, closedAt: request.closedAt.map(iso),
        owners: request.owners)
    }
  }
}
