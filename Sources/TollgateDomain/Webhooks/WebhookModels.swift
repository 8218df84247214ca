import Foundation
import TollgateAPI
import TollgateSupport

/// What a webhook can subscribe to.
public enum WebhookEventType: String, Sendable, CaseIterable, Codable {
  case subscriptionStarted = "subscription_started"
  case trialStarted = "trial_started"
  case subscriptionRenewed = "subscription_renewed"
  case subscriptionCancelled = "subscription_cancelled"
  case subscriptionExpired = "subscription_expired"
  case billingIssue = "billing_issue"
  case refund
  case nonSubscriptionPurchased = "non_subscription_purchased"
  case accessLevelUpdated = "access_level_updated"
  case attributionApplied = "attribution_applied"
  /// The Apple Ads spend importer stopped (bad credentials, no access to the organization).
  case appleAdsImportFailed = "apple_ads.import_failed"
  /// An operator gave a profile an access level by hand.
  case accessLevelGranted = "access_level.granted"
  /// An operator took a hand-given access level back.
  case accessLevelRevoked = "access_level.revoked"
}

/// A webhook of the configuration (`webhooks`).
public struct WebhookConfig: Sendable, Hashable {
  /// Stable id: the signing secret belongs to it.
  public var id: String
  /// Where events are POSTed.
  public var url: URL
  /// The events it receives.
  public var events: Set<WebhookEventType>
}

/// One event as the app's backend receives it.
public struct WebhookEventBody: Codable, Sendable, Hashable {
  /// Stable: a redelivery carries the same id (receivers de-duplicate with it).
  public var eventId: String
  public var type: WebhookEventType
  public var createdAt: String
  public var app: String
  public var profileId: String
  public var customerUserId: String?
  public var data: JSONValue

  /// Every stored field.
  package init(
    eventId: String, type: WebhookEventType, createdAt: String, app: String, profileId: String, customerUserId: String?,
    data: JSONValue
  ) {
    self.eventId = eventId
    self.type = type
    self.createdAt = createdAt
    self.app = app
    self.profileId = profileId
    self.customerUserId = customerUserId
    self.data = data
  }

  enum CodingKeys: String, CodingKey {
    case type, app, data
    case eventId = "event_id"
    case createdAt = "created_at"
    case profileId = "profile_id"
    case customerUserId = "customer_user_id"
  }
}

/// An event to enqueue: written to the outbox in the transaction of the change.
public struct PendingWebhookEvent: Sendable {
  /// What happened.
  public var type: WebhookEventType
  /// The profile it happened to.
  public var profileId: String
  /// The event's `data` object.
  public var data: JSONValue

  /// Every stored field.
  public init(type: WebhookEventType, profileId: String, data: JSONValue) {
    self.type = type
    self.profileId = profileId
    self.data = data
  }
}

/// A delivery of one event to one webhook.
public struct WebhookDelivery: Codable, Sendable, Hashable {
  public var id: Int64
  public var appId: Int64
  public var webhookId: String
  public var eventId: String
  public var eventType: String
  public var profileId: String
  /// `pending`, `delivered` or `parked` (gave up after 72 h; redeliver by hand).
  public var status: String
  public var attempts: Int64
  public var nextAttemptAt: String
  public var deadline: String
  public var lastStatus: Int64?
  public var lastError: String?
  public var createdAt: String
  public var deliveredAt: String?
  /// The signed body.
  public var body: String

  /// Every stored field.
  package init(
    id: Int64, appId: Int64, webhookId: String, eventId: String, eventType: String, profileId: String, status: String,
    attempts: Int64, nextAttemptAt: String, deadline: String, lastStatus: Int64?, lastError: String?, createdAt: String,
    deliveredAt: String?, body: String
  ) {
    self.id = id
    self.appId = appId
    self.webhookId = webhookId
    self.eventId = eventId
    self.eventType = eventType
    self.profileId = profileId
    self.status = status
    self.attempts = attempts
    self.nextAttemptAt = nextAttemptAt
    self.deadline = deadline
    self.lastStatus = lastStatus
    self.lastError = lastError
    self.createdAt = createdAt
    self.deliveredAt = deliveredAt
    self.body = body
  }

  enum CodingKeys: String, CodingKey {
    case id, status, attempts, deadline, body
    case appId = "app_id"
    case webhookId = "webhook_id"
    case eventId = "event_id"
    case eventType = "event_type"
    case profileId = "profile_id"
    case nextAttemptAt = "next_attempt_at"
    case lastStatus = "last_status"
    case lastError = "last_error"
    case createdAt = "created_at"
    case deliveredAt = "delivered_at"
  }
}

/// What one delivery attempt ended with.
public enum WebhookAttemptOutcome: Sendable {
  case delivered(status: Int)
  case retry(at: Date, status: Int?, error: String)
  case parked(status: Int?, error: String)
}

/// Building event data from the wire models.
package enum WebhookData {
  package static func json<T: Encodable>(_ value: T) -> JSONValue {
    (try? WireCoding.decoder.decode(JSONValue.self, from: WireCoding.encode(value))) ?? .null
  }

  package static func transaction(_ payload: TransactionPayload, credit: PurchaseAttribution?) -> JSONValue {
    var fields: [String: JSONValue] = [
      "transaction_id": .string(payload.transactionId),
      "original_transaction_id": .string(payload.originalTransactionId),
      "product_id": .string(payload.productId), "type": .string(payload.type),
      "purchase_date": .string(PurchaseDerivation.iso(payload.purchaseDate)),
      "environment": .string(payload.environment), "currency": .string(payload.currencyCode),
      "price": .double(Double(payload.price ?? 0) / 1000),
    ]
    if let expires = payload.expiresDate { fields["expires_date"] = .string(PurchaseDerivation.iso(expires)) }
    if let revoked = payload.revocationDate { fields["revocation_date"] = .string(PurchaseDerivation.iso(revoked)) }
    if let offer = payload.offerType { fields["offer_type"] = .int(Int64(offer)) }
    var data: [String: JSONValue] = ["transaction": .object(fields)]
    if let credit, credit.isAttributed {
      data["placement_id"] = .string(credit.placementId)
      data["audience_id"] = .string(credit.audienceId)
      data["variation_id"] = .string(credit.variationId)
    }
    return .object(data)
  }

  /// The `data` of `access_level.granted` / `access_level.revoked`.
  package static func grant(_ grant: AccessGrant) -> JSONValue {
    var fields: [String: JSONValue] = [
      "access_level_id": .string(grant.accessLevel), "grant_id": .int(grant.id), "reason": .string(grant.reason),
      "granted_at": .string(Timestamp.string(grant.grantedAt)), "granted_by": .string(grant.grantedBy),
      "is_lifetime": .bool(grant.expiresAt == nil),
    ]
    if let expires = grant.expiresAt { fields["expires_at"] = .string(Timestamp.string(expires)) }
    if let revoked = grant.revokedAt { fields["revoked_at"] = .string(Timestamp.string(revoked)) }
    if let by = grant.revokedBy { fields["revoked_by"] = .string(by) }
    return .object(fields)
  }

  /// Events a change of a profile's purchases means.
  package static func changes(profileId: String, from old: ProfilePurchases, to new: ProfilePurchases)
    -> [PendingWebhookEvent]
  {
    var events: [PendingWebhookEvent] = []
    for id in Set(old.payload.accessLevels.keys).union(new.payload.accessLevels.keys).sorted() {
      let before = old.payload.accessLevels[id]
      let after = new.payload.accessLevels[id]
      guard before != after else { continue }
      let level: JSONValue = after.map(json) ?? .object(["id": .string(id), "is_active": .bool(false)])
      events.append(.init(type: .accessLevelUpdated, profileId: profileId, data: .object(["access_level": level])))
    }
    for (product, after) in new.payload.subscriptions.sorted(by: { $0.key < $1.key }) {
      let before = old.payload.subscriptions[product]
      // Made only for an event: most changes mean none, and the subscription's JSON was a tenth
      // of recording an imported history.
      func data() -> JSONValue { .object(["subscription": json(after)]) }
      if after.state == .expired, before?.state != .expired {
        events.append(.init(type: .subscriptionExpired, profileId: profileId, data: data()))
      }
      if after.state == .gracePeriod || after.state == .billingRetry,
        before?.state != .gracePeriod && before?.state != .billingRetry
      {
        events.append(.init(type: .billingIssue, profileId: profileId, data: data()))
      }
      if !after.willRenew, before?.willRenew == true, after.state == .active {
        events.append(.init(type: .subscriptionCancelled, profileId: profileId, data: data()))
      }
    }
    return events
  }
}
