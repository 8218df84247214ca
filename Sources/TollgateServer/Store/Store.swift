import Foundation
import TollgateAPI

/// An app: the unit that owns keys, configuration, profiles and events.
public struct AppRecord: Sendable, Hashable {
  /// Internal id.
  public var id: Int64
  /// Unique name chosen by the operator.
  public var name: String
  /// Configuration revision; 0 before the first import.
  public var revision: Int64
}

/// Which routes a key opens.
public enum KeyKind: String, Sendable {
  /// `Api-Key` for SDK routes; ships inside the app.
  case publicKey = "public"
  /// `Bearer` for admin routes; stays on the operator's side.
  case secretKey = "secret"
}

/// A stored key: its hash, never the key itself.
public struct KeyRecord: Sendable, Hashable {
  /// The app the key belongs to.
  public var appId: Int64
  /// Public or secret.
  public var kind: KeyKind
  /// Its public identifier (`key_` and the first 16 hex digits of its hash).
  public var id: String = ""
  /// When it was revoked; a revoked key opens nothing.
  public var revokedAt: Date? = nil
  /// The last time a request used it (kept to the minute, not per request).
  public var lastUsedAt: Date? = nil
  /// When it was created.
  public var createdAt: Date = Date(timeIntervalSince1970: 0)
  /// The operator's note.
  public var label: String? = nil

  /// The public identifier of the key with this hash.
  public static func id(hash: String) -> String { "key_" + hash.prefix(16) }
}

/// One configuration revision in the history.
public struct ConfigRevisionRecord: Sendable, Hashable {
  /// The revision.
  public var revision: Int64
  /// When it was applied.
  public var appliedAt: Date
  /// Who applied it: a key id, or `cli`.
  public var appliedBy: String?
  /// What changed against the revision before it.
  public var summary: String?
}

/// One admin action, kept for the audit log.
public struct AuditRecord: Sendable, Hashable {
  /// Grows with each entry.
  public var seq: Int64 = 0
  /// When it happened.
  public var at: Date
  /// A key id, or `cli`.
  public var actor: String
  /// What was done, e.g. `key.revoked`, `config.applied`.
  public var action: String
  /// Details (JSON object text).
  public var detail: String

  public init(seq: Int64 = 0, at: Date, actor: String, action: String, detail: String) {
    self.seq = seq
    self.at = at
    self.actor = actor
    self.action = action
    self.detail = detail
  }
}

/// A configuration document as applied.
public struct ConfigRecord: Sendable, Hashable {
  /// The revision it created.
  public var revision: Int64
  /// The document's bytes, as imported.
  public var document: Data
  /// When it was applied.
  public var appliedAt: Date
}

/// A profile as stored.
public struct ProfileRecord: Sendable, Hashable {
  /// Lower-cased UUID.
  public var id: String
  /// Grows by one on every change.
  public var version: Int64
  /// The app's own user id.
  public var customerUserId: String?
  /// Install meta.
  public var install: InstallMeta
  /// Custom attributes.
  public var customAttributes: [String: JSONValue]
  /// Applied attribution sources, sorted.
  public var appliedSources: [String]
  /// Creation time.
  public var createdAt: Date
  /// Last change.
  public var updatedAt: Date
  /// Attribution payloads and the status of each source.
  public var attribution: ProfileAttribution = ProfileAttribution()
  /// What the profile owns, derived from its App Store facts.
  public var purchases: ProfilePurchases = ProfilePurchases()

  /// Creates a record.
  public init(
    id: String, version: Int64 = 1, customerUserId: String? = nil, install: InstallMeta = .init(),
    customAttributes: [String: JSONValue] = [:], appliedSources: [String] = [],
    createdAt: Date, updatedAt: Date
  ) {
    self.id = id
    self.version = version
    self.customerUserId = customerUserId
    self.install = install
    self.customAttributes = customAttributes
    self.appliedSources = appliedSources
    self.createdAt = createdAt
    self.updatedAt = updatedAt
  }
}

/// What attribution knows about a profile.
public struct ProfileAttribution: Codable, Sendable, Hashable {
  /// Apple's answer, once resolved with `attribution: true`.
  public var appleAds: AppleAdsRecord?
  /// Status per source (`apple_ads` → …).
  public var status: [String: AttributionStatus] = [:]

  /// Nothing known yet.
  public init() {}

  enum CodingKeys: String, CodingKey {
    case status
    case appleAds = "apple_ads"
  }
}

/// Apple's payload as applied to a profile.
public struct AppleAdsRecord: Codable, Sendable, Hashable {
  /// What Apple answered.
  public var payload: AppleAdsPayload
  /// Developer-mode (fake ids) attribution.
  public var test: Bool
  /// `clickDate` parsed.
  public var clickDate: Date?
  /// When the server received it.
  public var resolvedAt: Date

  /// Creates a record.
  public init(payload: AppleAdsPayload, test: Bool, clickDate: Date?, resolvedAt: Date) {
    self.payload = payload
    self.test = test
    self.clickDate = clickDate
    self.resolvedAt = resolvedAt
  }
}

/// The source name of Apple Ads attribution, on the wire and in rules.
public let appleAdsSource = "apple_ads"

/// A token waiting to be resolved with Apple, or its final outcome.
public struct AttributionJob: Sendable, Hashable {
  public var appId: Int64
  public var profileId: String
  /// SHA-256 of the token: the same token twice is one job.
  public var tokenHash: String
  /// The token; cleared once the outcome is final.
  public var token: String
  public var status: AttributionStatus
  /// Calls made to Apple so far.
  public var attempts: Int
  /// How many of them answered 404 (not ready yet).
  public var notFound: Int
  public var nextAttemptAt: Date
  public var lastError: String?
}

/// What the worker decided for a job.
public enum AttributionOutcome: Sendable, Hashable {
  /// Try again at this time.
  case retry(at: Date, attempts: Int, notFound: Int, error: String)
  /// Done: the final status, with Apple's payload when there is one.
  case final(AttributionStatus, payload: AppleAdsPayload?, attempts: Int, error: String?)
}

/// Identifies one experiment slot of one profile: the assignment key.
public struct AssignmentKey: Sendable, Hashable {
  /// The app.
  public var appId: Int64
  /// The profile.
  public var profileId: String
  /// The placement.
  public var placementId: String
  /// The audience whose experiment it is.
  public var audienceId: String
}

/// One recorded `flow_shown` event.
public struct EventRecord: Sendable, Hashable {
  /// Client id used to drop duplicates; nil records unconditionally.
  public var eventId: String?
  /// The profile.
  public var profileId: String
  /// The placement.
  public var placementId: String
  /// The audience the variation belongs to.
  public var audienceId: String
  /// The variation.
  public var variationId: String
  /// The flow of that variation.
  public var flowId: String
  /// When it was received.
  public var receivedAt: Date

  public init(
    eventId: String?, profileId: String, placementId: String, audienceId: String, variationId: String, flowId: String,
    receivedAt: Date
  ) {
    self.eventId = eventId
    self.profileId = profileId
    self.placementId = placementId
    self.audienceId = audienceId
    self.variationId = variationId
    self.flowId = flowId
    self.receivedAt = receivedAt
  }
}

/// Failures of a store that callers handle.
public enum StoreError: Error, Equatable, CustomStringConvertible {
  /// An app with this name exists already.
  case appExists(String)
  /// The database said no; the message is the database's.
  case database(String)
  /// The database cannot be reached right now (503); the request may be retried.
  case unavailable(String)
  /// The database cannot write (disk full, I/O error): 503 `storage_unavailable`; nothing was
  /// written, reads keep working, and writes succeed again once space returns.
  case storageUnavailable(String)
  /// A row did not hold what the code reads from it (a missing column, a NULL, another type):
  /// a bug or a damaged database, never read as a default.
  case corruptRow(String)

  public var description: String {
    switch self {
    case .appExists(let name): return "an app named \(name) exists already"
    case .database(let message): return "database error: \(message)"
    case .unavailable(let message): return "database unavailable: \(message)"
    case .storageUnavailable(let message): return "storage unavailable: \(message)"
    case .corruptRow(let message): return "unreadable row: \(message)"
    }
  }
}

/// Everything the server keeps. Each call is atomic; implementations are safe to call
/// from many threads at once. One conformance suite runs against every implementation.
public protocol Store: Sendable {
  /// Creates an app; throws `StoreError.appExists` when the name is taken.
  func createApp(name: String) throws -> AppRecord
  /// The app with this name.
  func app(named name: String) throws -> AppRecord?
  /// The app with this id.
  func app(id: Int64) throws -> AppRecord?
  /// Every app's id and current revision (config caches compare against it).
  func revisions() throws -> [Int64: Int64]

  /// Stores a key's SHA-256 hash.
  func addKey(appId: Int64, kind: KeyKind, hash: String, at: Date, label: String?) throws
  /// The key with this hash (revoked ones too: the caller refuses them).
  func key(hash: String) throws -> KeyRecord?
  /// The app's keys, oldest first.
  func keys(appId: Int64) throws -> [KeyRecord]
  /// Revokes a key by id; nil when the app has no such key. Revoking twice keeps the first time.
  func revokeKey(appId: Int64, id: String, at: Date) throws -> KeyRecord?
  /// Notes that a key was used at `at`.
  func touchKey(hash: String, at: Date) throws
  /// Appends to the audit log.
  func audit(appId: Int64, _ entry: AuditRecord) throws
  /// The audit log, newest first, entries before `before` (a seq) when given.
  func auditLog(appId: Int64, before: Int64?, limit: Int) throws -> [AuditRecord]
  /// The configuration history, newest first.
  func configHistory(appId: Int64, limit: Int) throws -> [ConfigRevisionRecord]
  /// One applied revision's document.
  func config(appId: Int64, revision: Int64) throws -> ConfigRecord?

  /// Stores a validated document as the app's next revision, atomically; returns it.
  func applyConfig(appId: Int64, document: Data, at: Date, by: String?, summary: String?) throws -> Int64
  /// The app's current document.
  func currentConfig(appId: Int64) throws -> ConfigRecord?

  /// Inserts a profile unless one with its id exists; returns the stored one and
  /// whether it was created by this call.
  func insertProfile(appId: Int64, _ profile: ProfileRecord) throws -> (ProfileRecord, created: Bool)
  /// Inserts many profiles in one transaction (imports, benchmarks); existing ids are kept.
  /// Returns how many were new.
  func importProfiles(appId: Int64, _ profiles: [ProfileRecord]) throws -> Int
  /// The profile with this id.
  func profile(appId: Int64, id: String) throws -> ProfileRecord?
  /// The oldest profile carrying this customer user id.
  func profile(appId: Int64, customerUserId: String) throws -> ProfileRecord?
  /// Changes a profile in one transaction; `version` grows by one and `updatedAt` is set
  /// when `change` returns true. Returns nil for an unknown profile.
  func updateProfile(
    appId: Int64, id: String, at: Date, _ change: (inout ProfileRecord) throws -> Bool
  ) throws -> ProfileRecord?

  /// The stored variation of an experiment slot.
  func assignment(_ key: AssignmentKey) throws -> String?
  /// Stores `variationId` unless the slot has one; returns the slot's variation.
  func assign(_ key: AssignmentKey, variationId: String, at: Date) throws -> String

  /// Records a token for a profile unless the same token was recorded before; marks the
  /// profile's `apple_ads` status pending unless already applied.
  func enqueueAttribution(appId: Int64, profileId: String, token: String, tokenHash: String, at: Date) throws
    -> (AttributionJob, created: Bool)
  /// Takes up to `limit` due pending jobs and pushes their next attempt `lease` seconds
  /// ahead, so a crashed worker's jobs come back and two workers never take the same job.
  func claimAttributionJobs(now: Date, lease: TimeInterval, limit: Int) throws -> [AttributionJob]
  /// Stores the worker's decision; a final `applied` adds the source to the profile (and
  /// bumps its version) in the same transaction. Returns the profile when it changed.
  func finishAttribution(_ job: AttributionJob, _ outcome: AttributionOutcome, at: Date, webhooks: [WebhookConfig])
    throws -> ProfileRecord?
  /// Pending jobs.
  func attributionQueueDepth() throws -> Int

  /// Records events, skipping ids seen before; returns how many were new.
  func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int

  /// Records verified App Store facts and what they change, in one transaction: the
  /// notification (nothing at all when its `notificationUUID` was recorded before), each
  /// transaction (one row per `transactionId`, the latest `signedDate` wins), the owner
  /// claim, then every profile that owns (or owned) these subscriptions gets its purchases
  /// re-derived with `derive`; a profile whose purchases changed gets a new version.
  func recordAppStoreFacts(
    appId: Int64, _ facts: AppStoreFacts, at: Date, derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> AppStoreFactsOutcome
  /// Re-derives one profile's purchases (an expiry came due); returns it when it changed.
  func rederivePurchases(
    appId: Int64, profileId: String, at: Date, webhooks: [WebhookConfig], derive: (PurchaseHistory) -> ProfilePurchases
  ) throws -> ProfileRecord?
  /// A profile's stored transactions, newest first (admin lookups).
  func transactions(appId: Int64, profileId: String) throws -> [StoredTransaction]

  /// Records what the SDK reports of a first launch: whether the Apple Ads-targeted flow
  /// arrived before the timeout (the first report of a profile counts).
  func recordFirstLaunch(appId: Int64, profileId: String, aaFlowInTime: Bool, at: Date) throws
  /// A placement's counters per variation over a range of UTC days, from the rollups.
  func placementStats(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationCounts]
  /// The app's attribution tokens by outcome.
  func attributionFunnel(appId: Int64) throws -> AttributionFunnel
  /// Transactions and amounts by currency over UTC days, every paywall and unattributed together.
  func revenueTotals(appId: Int64, days: ClosedRange<Int64>) throws -> [String: MoneyFigures]
  /// A placement's counters per variation and day.
  func placementDays(appId: Int64, placementId: String, days: ClosedRange<Int64>) throws -> [VariationDay]
  /// The ids of the profiles carrying this customer user id, oldest first.
  func profileIds(appId: Int64, customerUserId: String, limit: Int) throws -> [String]
  /// A profile's stored A/B assignments.
  func assignments(appId: Int64, profileId: String) throws -> [AssignmentRow]
  /// A profile's latest `flow_shown` events, newest first.
  func recentEvents(appId: Int64, profileId: String, limit: Int) throws -> [EventRow]
  /// Apple Ads counters over a range of install days, grouped as asked, from the rollups.
  func appleAdsStats(appId: Int64, days: ClosedRange<Int64>, by grouping: AppleAdsGrouping) throws -> [AppleAdsCounts]
  /// Every rollup row of the app as text lines (rows that netted out to zero left out), sorted.
  func rollupSnapshot(appId: Int64) throws -> [String]
  /// Recomputes the app's rollups from raw rows, in one transaction.
  func rebuildRollups(appId: Int64) throws

  /// Creates signing secrets for the webhooks that have none; returns the new ones in clear
  /// (shown once), sealed with `box` in the database.
  func ensureWebhookSecrets(appId: Int64, ids: [String], box: SecretBox, at: Date) throws -> [String: String]
  /// Replaces a webhook's secret; returns the new one in clear.
  func rotateWebhookSecret(appId: Int64, id: String, box: SecretBox, at: Date) throws -> String
  /// A webhook's secret in clear.
  func webhookSecret(appId: Int64, id: String, box: SecretBox) throws -> String?
  /// Takes up to `limit` due deliveries — for each webhook and profile only the oldest
  /// undelivered one, so a profile's events arrive in order — and leases them for `lease`
  /// seconds, so no other worker sends them meanwhile.
  func claimWebhookDeliveries(now: Date, lease: TimeInterval, limit: Int) throws -> [WebhookDelivery]
  /// Records an attempt's outcome.
  func finishWebhookDelivery(id: Int64, _ outcome: WebhookAttemptOutcome, at: Date) throws
  /// The app's deliveries, newest first, optionally of one status.
  func webhookDeliveries(appId: Int64, status: String?, limit: Int) throws -> [WebhookDelivery]
  /// Puts a delivery back in line for another 72 hours; false when there is no such delivery.
  func redeliverWebhook(appId: Int64, id: Int64, at: Date) throws -> Bool

  /// The in-memory profile cache, when there is one (its figures go to `/metrics`).
  var profileCache: ProfileCache? { get }
  /// First-time A/B assignments waiting for their batch write, written, and dropped (nil
  /// when they are written on the request path).
  var assignmentWrites: (pending: Int, written: Int, dropped: Int)? { get }
  /// Reads profiles into the cache until it is full; returns how many were read.
  @discardableResult
  func warmProfileCache(pageSize: Int) throws -> Int

  /// Finishes pending work and releases the database.
  func close()
}

/// One verified transaction to store.
public struct StoredTransaction: Sendable, Hashable {
  /// The decoded payload.
  public var payload: TransactionPayload
  /// Apple's JWS, kept so it can be verified again.
  public var jws: String
  /// The variation whose flow sold it, when the SDK named one.
  public var variationId: String?

  public init(payload: TransactionPayload, jws: String, variationId: String? = nil) {
    self.payload = payload
    self.jws = jws
    self.variationId = variationId
  }
}

/// One verified notification to store.
public struct StoredNotification: Sendable, Hashable {
  public var uuid: String
  public var fact: NotificationFact
  /// The decoded notification, as JSON.
  public var payload: Data
  public var jws: String

  public init(uuid: String, fact: NotificationFact, payload: Data, jws: String) {
    self.uuid = uuid
    self.fact = fact
    self.payload = payload
    self.jws = jws
  }
}

/// What happens when a restore brings a subscription another profile owns.
public enum AccessLevelSharing: String, Sendable, Hashable, CaseIterable {
  /// The restoring profile takes it; the previous owner loses the access (the default).
  case transfer
  /// Both profiles keep the access.
  case shared
  /// The first owner keeps it; the restoring profile gets nothing.
  case off
}

/// A batch of App Store facts.
public struct AppStoreFacts: Sendable {
  /// Transactions, alone (from the SDK) or from a notification.
  public var transactions: [StoredTransaction] = []
  /// The notification they came with.
  public var notification: StoredNotification?
  /// The profile that sent the transactions and claims their subscriptions.
  public var claimant: String?
  /// How a claim on a subscription owned by another profile is settled.
  public var sharing: AccessLevelSharing = .transfer
  /// The app's webhooks: the changes' events go to their outbox in the same transaction.
  public var webhooks: [WebhookConfig] = []

  public init(
    transactions: [StoredTransaction] = [], notification: StoredNotification? = nil, claimant: String? = nil,
    sharing: AccessLevelSharing = .transfer, webhooks: [WebhookConfig] = []
  ) {
    self.transactions = transactions
    self.notification = notification
    self.claimant = claimant
    self.sharing = sharing
    self.webhooks = webhooks
  }
}

/// What recording App Store facts did.
public struct AppStoreFactsOutcome: Sendable {
  /// The notification had been recorded before: nothing changed.
  public var duplicate = false
  /// Profiles whose purchases changed (new versions).
  public var changed: [ProfileRecord] = []
  /// The claimant as stored after the change.
  public var claimant: ProfileRecord?
  /// Original transactions that no profile owns yet (kept until one claims them).
  public var unowned: [String] = []

  public init() {}
}
