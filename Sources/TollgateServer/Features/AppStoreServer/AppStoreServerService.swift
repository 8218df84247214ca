import Foundation
import TollgateAPI
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// What the App Store Server API integration reports: the key (never the key itself) and, per
/// environment, the notification recovery.
public struct AppStoreServerStatus: Codable, Sendable, Hashable {
  /// The uploaded key, described.
  public struct Credentials: Codable, Sendable, Hashable {
    public var keyFingerprint: String
    public var uploadedAt: String

    enum CodingKeys: String, CodingKey {
      case keyFingerprint = "key_fingerprint"
      case uploadedAt = "uploaded_at"
    }
  }

  /// One environment's recovery.
  public struct Recovery: Codable, Sendable, Hashable {
    public var environment: String
    /// `scheduled`, `running` (another pass holds it now), `failed` (stopped until the
    /// credentials or configuration change).
    public var status: String
    public var nextRunAt: String?
    /// The window the last completed run covered.
    public var coveredFrom: String?
    public var coveredTo: String?
    /// Over every run: applied (Apple had not delivered them), already known, refused (did not verify).
    public var recovered: Int64
    public var alreadyKnown: Int64
    public var refused: Int64
    /// Subscriptions reconciliation found changed without a notification.
    public var reconciled: Int64
    public var lastCallAt: String?
    public var lastSuccessAt: String?
    public var lastError: String?
    public var failure: String?

    enum CodingKeys: String, CodingKey {
      case environment, status, recovered, refused, failure, reconciled
      case nextRunAt = "next_run_at"
      case coveredFrom = "covered_from"
      case coveredTo = "covered_to"
      case alreadyKnown = "already_known"
      case lastCallAt = "last_call_at"
      case lastSuccessAt = "last_success_at"
      case lastError = "last_error"
    }
  }

  /// The setup check: the last TEST notification requested, and whether it arrived.
  public struct TestNotification: Codable, Sendable, Hashable {
    public var environment: String
    public var requestedAt: String
    /// When Apple accepted the request (nil while it is being asked, or when it could not be).
    public var sentAt: String?
    /// When the TEST notification reached the notification URL; nil: not (yet).
    public var receivedAt: String?
    /// Why Apple could not be asked.
    public var error: String?

    enum CodingKeys: String, CodingKey {
      case environment, error
      case requestedAt = "requested_at"
      case sentAt = "sent_at"
      case receivedAt = "received_at"
    }
  }

  /// Whether the configuration has `app_store.server_api`.
  public var configured: Bool
  public var issuerId: String?
  public var keyId: String?
  public var bundleId: String?
  public var credentials: Credentials?
  public var recoveries: [Recovery]
  public var testNotification: TestNotification?

  enum CodingKeys: String, CodingKey {
    case configured, credentials, recoveries
    case testNotification = "test_notification"
    case issuerId = "issuer_id"
    case keyId = "key_id"
    case bundleId = "bundle_id"
  }
}

/// An order as Apple knows it (Look Up Order ID), with the profiles that own its purchases.
public struct AppStoreOrder: Codable, Sendable, Hashable {
  /// One transaction of the order.
  public struct Transaction: Codable, Sendable, Hashable {
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    public var purchaseDate: String
    public var environment: String
    /// Refunded or revoked.
    public var revoked: Bool
    /// The profiles that own its subscription or purchase (none: no device of it used Tollgate yet).
    public var owners: [String]

    enum CodingKeys: String, CodingKey {
      case environment, revoked, owners
      case transactionId = "transaction_id"
      case originalTransactionId = "original_transaction_id"
      case productId = "product_id"
      case purchaseDate = "purchase_date"
    }
  }

  public var orderId: String
  public var transactions: [Transaction]

  enum CodingKeys: String, CodingKey {
    case transactions
    case orderId = "order_id"
  }
}

/// What an operator does with the App Store Server API: uploads the In-App Purchase key
/// (sealed at once, never shown again), removes it, reads the status, asks for a recovery now.
/// Each change is audited.
public final class AppStoreServerService: Sendable {
  let apps: any AppRepository
  let store: any AppStoreServerRepository
  let configs: ConfigCache
  let secrets: SecretBox?
  let recovery: NotificationRecovery?
  let time: any TimeSource
  /// What order lookups call and check Apple's answers with.
  let api: any AppStoreServerAPI
  let verifier: SignedDataVerifier
  let purchases: any PurchaseRepository
  /// Refreshes a customer's history at once (nil in the command line: a server does it).
  let refresher: HistoryRefresher?

  /// A service; `recovery` (nil in the command line) hears about new keys and requests.
  package init(
    apps: any AppRepository, store: any AppStoreServerRepository, configs: ConfigCache, secrets: SecretBox?,
    recovery: NotificationRecovery?, time: any TimeSource, api: any AppStoreServerAPI,
    verifier: SignedDataVerifier, purchases: any PurchaseRepository, refresher: HistoryRefresher? = nil
  ) {
    self.refresher = refresher
    self.apps = apps
    self.store = store
    self.configs = configs
    self.secrets = secrets
    self.recovery = recovery
    self.time = time
    self.api = api
    self.verifier = verifier
    self.purchases = purchases
  }

  /// The transactions of the order id on a customer's Apple receipt e-mail, verified, with the
  /// profiles that own them (Production only, as Apple's API). 404 `order_not_found` when
  /// Apple knows no such order; 502 `app_store_api_failed` when Apple refuses or fails.
  public func lookUpOrder(appId: Int64, orderId: String) async throws -> AppStoreOrder {
    guard orderId.range(of: "^[A-Za-z0-9]{1,64}$", options: .regularExpression) != nil else {
      throw DomainError(.badParameter, "An order id is the letters and digits on the Apple receipt e-mail.")
    }
    let opened: AppStoreServerKeys.Opened
    let settings = try configs.entry(appId: appId)?.config.appStore
    do throws(AppStoreServerKeys.Failure) {
      opened = try AppStoreServerKeys(store: store, secrets: secrets).open(appId: appId, settings: settings)
    } catch {
      switch error {
      case .notConfigured:
        // The app has no way to call Apple yet: like a missing key (a GET has nothing to fix).
        throw DomainError.notFound(
          .credentialsNotFound,
          "Add app_store.server_api {issuer_id, key_id} to the app's configuration and upload its In-App Purchase key first."
        )
      case .credentials(let message):
        throw DomainError.notFound(.credentialsNotFound, "In-App Purchase key: \(message).")
      }
    }
    let answer: OrderLookupAnswer
    do {
      answer = try await api.lookUpOrder(orderId, token: try opened.token(now: time.now()))
    } catch let error as AppStoreServerAPIError {
      throw DomainError(.appStoreAPIFailed, "Look Up Order ID: \(error)")
    }
    let signed = answer.signedTransactions ?? []
    guard answer.status == 0, !signed.isEmpty else {
      throw DomainError.notFound(.orderNotFound, "Apple knows no order \(orderId) for this app.")
    }
    let payloads = try signed.map { jws in
      do {
        return try verifier.transaction(jws, for: opened.settings)
      } catch {
        throw DomainError(.appStoreAPIFailed, "Apple's answer holds a transaction that does not verify: \(error)")
      }
    }
    let originals = Array(Set(payloads.map(\.originalTransactionId))).sorted()
    let owners = try purchases.purchases(appId: appId) { rows in
      try Dictionary(uniqueKeysWithValues: originals.map { ($0, try rows.owners(of: $0)) })
    }
    return AppStoreOrder(
      orderId: orderId,
      transactions: payloads.map { payload in
        .init(
          transactionId: payload.transactionId, originalTransactionId: payload.originalTransactionId,
          productId: payload.productId,
          purchaseDate: Timestamp.string(Date(timeIntervalSince1970: Double(payload.purchaseDate) / 1000)),
          environment: payload.environment, revoked: payload.revocationDate != nil,
          owners: owners[payload.originalTransactionId] ?? [])
      })
  }

  /// Pulls a customer's whole history from Apple now and records it (the route). 404
  /// `profile_not_found`, 409 `no_app_store_transactions`, 404 `credentials_not_found`, 502
  /// `app_store_api_failed` (the refresh is kept as `failed` with Apple's answer).
  func refreshHistory(appId: Int64, profileId: String, by actor: String) async throws -> HistoryRefresh {
    guard let refresher else { return try requestHistoryRefresh(appId: appId, profileId: profileId, by: actor) }
    let refresh = try await refresher.refresh(appId: appId, profileId: profileId, by: actor)
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "app_store.history_refreshed",
        detail: AuditDetail.json([
          "profile_id": .string(profileId), "transactions": .int(refresh.transactions),
          "changed": .int(refresh.changed),
        ])))
    return refresh
  }

  /// Leaves a request to refresh a customer's history, which a running server takes within
  /// seconds (the command line: the server's caches see what it records).
  public func requestHistoryRefresh(appId: Int64, profileId: String, by actor: String) throws -> HistoryRefresh {
    _ = try HistoryRefresher.sources(
      purchases: purchases, appId: appId, profileId: profileId,
      settings: try configs.entry(appId: appId)?.config.appStore)
    let record = try store.requestHistoryRefresh(
      appId: appId, profileId: profileId, by: actor, running: false, at: time.now())
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "app_store.history_refresh_requested",
        detail: AuditDetail.json(["profile_id": .string(profileId)])))
    recovery?.kick()
    return HistoryRefresh(record)
  }

  /// A profile's latest history refresh, when there was one.
  public func historyRefresh(appId: Int64, profileId: String) throws -> HistoryRefresh? {
    try store.historyRefresh(appId: appId, profileId: profileId).map(HistoryRefresh.init)
  }

  /// Apple's refund requests signed from day `from` through day `to` (`YYYY-MM-DD`, UTC); by
  /// default the 30 days up to now. 400 `bad_parameter` for another form.
  public func refundRequests(appId: Int64, from fromDay: String? = nil, to toDay: String? = nil) throws
    -> RefundRequestReport
  {
    func day(_ text: String?, _ name: String) throws -> Date? {
      guard let text else { return nil }
      guard let day = StatsDay.parseISODay(text) else {
        throw DomainError(.badParameter, "\(name) is a UTC day such as 2026-11-29.")
      }
      return Date(timeIntervalSince1970: Double(day) * 86_400)
    }
    let to = try day(toDay, "to")?.addingTimeInterval(86_400) ?? time.now().addingTimeInterval(1)
    let from = try day(fromDay, "from") ?? to.addingTimeInterval(-30 * 86_400)
    // A window that ends before it starts holds nothing (no request can be in it).
    let requests = from < to ? try store.refundRequests(appId: appId, from: from, to: to) : []
    return RefundRequestReport(from: from, to: max(from, to), requests)
  }

  /// The environments the recovery runs in: the configured ones Apple's API serves.
  static func environments(_ settings: AppStoreSettings) -> [String] {
    ["Production", "Sandbox"].filter(settings.environments.contains)
  }

  /// Seals and stores the In-App Purchase key (`.p8`: PKCS#8 P-256) and schedules a recovery now.
  public func saveCredentials(appId: Int64, privateKey pem: String, by actor: String) throws -> AppStoreServerStatus {
    guard let settings = try configs.entry(appId: appId)?.config.appStore, settings.serverAPI != nil else {
      throw DomainError(
        .appStoreServerAPINotConfigured,
        "Add app_store.server_api {issuer_id, key_id} to the app's configuration first.")
    }
    guard let secrets else {
      throw DomainError(.secretsKeyMissing, "The server has no secrets key to seal the private key with.")
    }
    let key: ECKey
    do {
      key = try ECKey(privatePEM: pem)
    } catch {
      throw DomainError(
        .invalidPrivateKey,
        "private_key must be the In-App Purchase key's .p8 file (BEGIN PRIVATE KEY, P-256) from App Store Connect: \(error)"
      )
    }
    let fingerprint = Digest.sha256Hex(key.publicPEM)
    try store.saveAppStoreCredentials(
      appId: appId, sealedKey: try secrets.seal(key.privatePEM), keyFingerprint: fingerprint,
      environments: Self.environments(settings), at: time.now())
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "app_store.credentials_saved",
        detail: AuditDetail.json(["key_fingerprint": .string(fingerprint)])))
    recovery?.kick()
    return try status(appId: appId)
  }

  /// Forgets the key and stops recovering (what was recovered stays).
  public func deleteCredentials(appId: Int64, by actor: String) throws -> AppStoreServerStatus {
    guard try store.deleteAppStoreCredentials(appId: appId) else {
      throw DomainError.notFound(.credentialsNotFound, "No In-App Purchase key was uploaded for this app.")
    }
    try apps.audit(
      appId: appId, AuditRecord(at: time.now(), actor: actor, action: "app_store.credentials_deleted", detail: "{}"))
    return try status(appId: appId)
  }

  /// Makes the recoveries due now (stopped ones too).
  public func recoverNow(appId: Int64, by actor: String) throws -> AppStoreServerStatus {
    guard try store.requestRecovery(appId: appId, at: time.now()) else {
      throw DomainError.notFound(.credentialsNotFound, "No In-App Purchase key was uploaded for this app.")
    }
    try apps.audit(
      appId: appId, AuditRecord(at: time.now(), actor: actor, action: "app_store.recovery_requested", detail: "{}"))
    recovery?.kick()
    return try status(appId: appId)
  }

  /// Asks Apple (in the background, within seconds) to send a TEST notification to the app's
  /// notification URL, in `environment` (Sandbox when configured, else Production); the status
  /// says when Apple accepted and when it arrived.
  public func requestTestNotification(appId: Int64, environment: String?, by actor: String) throws
    -> AppStoreServerStatus
  {
    guard try store.appStoreCredentials(appId: appId) != nil,
      let settings = try configs.entry(appId: appId)?.config.appStore
    else {
      throw DomainError.notFound(.credentialsNotFound, "No In-App Purchase key was uploaded for this app.")
    }
    let served = Self.environments(settings)
    guard let chosen = environment ?? (served.contains("Sandbox") ? "Sandbox" : served.first), served.contains(chosen)
    else {
      throw DomainError.validation([
        .init(path: "$.environment", message: "one of the configured environments Apple's API serves: \(served)")
      ])
    }
    try store.requestTestNotification(appId: appId, environment: chosen, at: time.now())
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "app_store.test_notification_requested",
        detail: AuditDetail.json(["environment": .string(chosen)])))
    recovery?.kick()
    return try status(appId: appId)
  }

  /// The configuration, the key (described) and each environment's recovery.
  public func status(appId: Int64) throws -> AppStoreServerStatus {
    let settings = try configs.entry(appId: appId)?.config.appStore
    let now = time.now().timeIntervalSince1970
    func iso(_ seconds: Double?) -> String? { seconds.map { Timestamp.string(Date(timeIntervalSince1970: $0)) } }
    return AppStoreServerStatus(
      configured: settings?.serverAPI != nil, issuerId: settings?.serverAPI?.issuerId,
      keyId: settings?.serverAPI?.keyId, bundleId: settings?.bundleId,
      credentials: try store.appStoreCredentials(appId: appId).map {
        .init(keyFingerprint: $0.keyFingerprint, uploadedAt: iso($0.createdAt)!)
      },
      recoveries: try store.recoveries(appId: appId).map { job in
        .init(
          environment: job.environment,
          status: job.status == "scheduled" && job.leaseUntil > now ? "running" : job.status,
          nextRunAt: job.status == "scheduled" ? iso(job.nextRunAt) : nil, coveredFrom: iso(job.coveredFrom),
          coveredTo: iso(job.coveredTo), recovered: job.recovered, alreadyKnown: job.alreadyKnown,
          refused: job.refused, reconciled: job.reconciled, lastCallAt: iso(job.lastCallAt),
          lastSuccessAt: iso(job.lastSuccessAt),
          lastError: job.lastError, failure: job.failure)
      },
      testNotification: try store.testNotification(appId: appId).map {
        .init(
          environment: $0.environment, requestedAt: iso($0.requestedAt)!, sentAt: iso($0.sentAt),
          receivedAt: iso($0.receivedAt), error: $0.error)
      })
  }
}
