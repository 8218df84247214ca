import Foundation
import TollgateAPI
import TollgateSupport

/// One notification as far as subscription state is concerned.
public struct NotificationFact: Codable, Sendable, Hashable {
  /// `notificationType`.
  public var type: String
  /// `subtype`.
  public var subtype: String?
  /// `signedDate`, milliseconds: the order facts are applied in, whatever the arrival order.
  public var signedDate: Int64
  /// The subscription it is about, when it carries a transaction.
  public var originalTransactionId: String?
  /// Its renewal info, when it carries one.
  public var renewal: RenewalInfoPayload?

  public init(
    type: String, subtype: String? = nil, signedDate: Int64, originalTransactionId: String? = nil,
    renewal: RenewalInfoPayload? = nil
  ) {
    self.type = type
    self.subtype = subtype
    self.signedDate = signedDate
    self.originalTransactionId = originalTransactionId
    self.renewal = renewal
  }
}

/// Everything known about what one profile bought: the facts its state derives from.
public struct PurchaseHistory: Sendable, Hashable {
  /// Every transaction of the profile's original transactions (one row per `transactionId`,
  /// the version with the latest `signedDate`).
  public var transactions: [TransactionPayload]
  /// Every notification about those original transactions.
  public var notifications: [NotificationFact]
  /// Access levels given by hand (revoked ones too: they say when access ended).
  public var grants: [AccessGrant]

  public init(
    transactions: [TransactionPayload] = [], notifications: [NotificationFact] = [], grants: [AccessGrant] = []
  ) {
    self.transactions = transactions
    self.notifications = notifications
    self.grants = grants
  }
}

/// An access level of the configuration: the products that unlock it.
public struct AccessLevelDefinition: Sendable, Hashable {
  public var id: String
  public var products: Set<String>

  public init(id: String, products: Set<String>) {
    self.id = id
    self.products = products
  }
}

/// What a profile owns, as stored on the profile: the wire payload, the facts audience rules
/// read, and when it next changes by the clock alone (an expiry).
public struct ProfilePurchases: Codable, Sendable, Hashable {
  /// Access levels, subscriptions and other purchases.
  public var payload = PurchasesPayload()
  /// The subscription rules see as `subscription.*`: the active one, else the latest.
  public var primarySubscription: SubscriptionPayload?
  /// Purchases made (renewals excluded).
  public var purchaseCount = 0
  /// The earliest time an active level or subscription lapses without any new fact.
  public var nextChangeAt: Date?
  /// The access levels configuration it was derived under (`PurchaseDerivation.key`).
  public var levelsKey: String?

  public init() {}

  /// Whether anything was ever bought.
  public var hasPurchases: Bool { !payload.subscriptions.isEmpty || !payload.nonSubscriptions.isEmpty }

  enum CodingKeys: String, CodingKey {
    case payload
    case primarySubscription = "primary_subscription"
    case purchaseCount = "purchase_count"
    case nextChangeAt = "next_change_at"
    case levelsKey = "levels_key"
  }

  /// Decodes; a profile that never bought anything stores `{}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    payload = try container.decodeIfPresent(PurchasesPayload.self, forKey: .payload) ?? PurchasesPayload()
    primarySubscription = try container.decodeIfPresent(SubscriptionPayload.self, forKey: .primarySubscription)
    purchaseCount = try container.decodeIfPresent(Int.self, forKey: .purchaseCount) ?? 0
    nextChangeAt = try container.decodeIfPresent(Date.self, forKey: .nextChangeAt)
    levelsKey = try container.decodeIfPresent(String.self, forKey: .levelsKey)
  }
}
