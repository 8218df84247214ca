import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of purchases: signed data is verified against Apple's root (a refusal is a 422
/// with its own code), stored once, and every profile that owns the subscription gets its
/// access levels derived again in the same transaction; webhooks are written with the change.
final class PurchaseService: Sendable {
  /// Longer signed data is not Apple's.
  static let maxSignedDataLength = 32_768

  let apps: any AppRepository
  let purchases: PurchaseRecorder
  let configs: ConfigCache
  let verifier: SignedDataVerifier
  let profiles: ProfileService
  let webhooks: WebhookWorker
  let time: any TimeSource
  let logger: Logger
  /// Told when a refund request waits for an answer (nil: none are sent from this process).
  let refundAnswers: RefundRequestAnswerer?

  init(
    apps: any AppRepository, purchases: any PurchaseRepository, configs: ConfigCache, verifier: SignedDataVerifier,
    profiles: ProfileService,
    webhooks: WebhookWorker, time: any TimeSource, logger: Logger, refundAnswers: RefundRequestAnswerer? = nil
  ) {
    self.refundAnswers = refundAnswers
    self.apps = apps
    self.purchases = PurchaseRecorder(purchases)
    self.configs = configs
    self.verifier = verifier
    self.profiles = profiles
    self.webhooks = webhooks
    self.time = time
    self.logger = logger
  }

  /// A StoreKit transaction the SDK hands over for `profileId`; returns the profile that
  /// owns it now, with its access levels.
  func record(_ body: TransactionRequest, appId: Int64, profileId: String) throws -> ProfileRecord {
    try Self.checkSignedDataLength(body.signedTransaction, path: "$.signed_transaction")
    if let variation = body.variationId, !(1...200).contains(variation.utf8.count) {
      throw DomainError.validation([.init(path: "$.variation_id", message: "a variation id is 1–200 bytes")])
    }
    let origin = try Self.origin(body)
    let profile = try profiles.existing(appId: appId, id: profileId)
    let config = try appStoreConfig(appId: appId)
    let transaction = try verified { try verifier.transaction(body.signedTransaction, for: config.settings) }
    let outcome = try purchases.record(
      appId: appId,
      AppStoreFacts(
        transactions: [
          StoredTransaction(
            payload: transaction, jws: body.signedTransaction, variationId: body.variationId,
            owned: origin == .entitlement)
        ], claimant: profile.id, sharing: config.compiled.accessLevelSharing, webhooks: config.compiled.webhooks),
      at: time.now(),
      derive: profiles.derivation(config.compiled))
    profiles.changed(outcome.changed, appId)
    if !config.compiled.webhooks.isEmpty { webhooks.kick() }
    return outcome.claimant ?? profile
  }

  /// The request's origin (a purchase when absent); 422 at `$.origin` for another value, and at
  /// `$.variation_id` when an entitlement names a paywall.
  static func origin(_ body: TransactionRequest) throws(DomainError) -> TransactionOrigin {
    guard let text = body.origin else { return .purchase }
    guard let origin = TransactionOrigin(rawValue: text) else {
      throw DomainError.validation([
        .init(path: "$.origin", message: "one of \(TransactionOrigin.allCases.map(\.rawValue).joined(separator: ", "))")
      ])
    }
    if origin == .entitlement, body.variationId != nil {
      throw DomainError.validation([
        .init(path: "$.variation_id", message: "a subscription the user already had was sold by no paywall")
      ])
    }
    return origin
  }

  /// The app a notification URL names, else 404 `app_not_found`.
  func app(named name: String) throws -> AppRecord {
    guard let app = try apps.app(named: name) else {
      throw DomainError.notFound(.appNotFound, "No app named \(name).")
    }
    return app
  }

  /// An App Store Server Notification V2 for `app`; the JWS is the only proof. Recorded once
  /// per `notificationUUID`; `origin` says whether Apple delivered it or the recovery found it.
  func record(_ body: AppStoreNotificationRequest, app: AppRecord, origin: String = "delivered") throws
    -> AppStoreNotificationAck
  {
    let name = app.name
    try Self.checkSignedDataLength(body.signedPayload, path: "$.signedPayload")
    let config = try appStoreConfig(appId: app.id)
    let settings = config.settings
    let notification = try verified { try verifier.notification(body.signedPayload, for: settings) }
    let transaction = try notification.data?.signedTransactionInfo.map { jws in
      try verified { try verifier.transaction(jws, for: settings) }
    }
    let renewal = try notification.data?.signedRenewalInfo.map { jws in
      try verified { try verifier.renewalInfo(jws, for: settings) }
    }
    let fact = NotificationFact(
      type: notification.notificationType, subtype: notification.subtype, signedDate: notification.signedDate,
      originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId, renewal: renewal)
    var facts = AppStoreFacts(
      transactions: zip([transaction], [notification.data?.signedTransactionInfo]).compactMap { payload, jws in
        payload.flatMap { payload in jws.map { StoredTransaction(payload: payload, jws: $0) } }
      },
      notification: StoredNotification(
        uuid: notification.notificationUUID, fact: fact, payload: WireCoding.encode(notification),
        jws: body.signedPayload, origin: origin), webhooks: config.compiled.webhooks)
    if notification.notificationType == "CONSUMPTION_REQUEST", let transaction {
      facts.refundRequest = refundRequest(notification, transaction, settings: settings, appId: app.id)
    }
    let outcome = try purchases.record(
      appId: app.id, facts, at: time.now(), derive: profiles.derivation(config.compiled))
    profiles.changed(outcome.changed, app.id)
    if !config.compiled.webhooks.isEmpty { webhooks.kick() }
    let label = [notification.notificationType, notification.subtype].compactMap { $0 }.joined(separator: "/")
    if outcome.duplicate {
      logger.info("App Store notification \(notification.notificationUUID) (\(label)) was recorded before")
    } else if notification.notificationType == "TEST" {
      logger.info("App Store TEST notification \(notification.notificationUUID) received for app \(name)")
    } else {
      logger.info(
        "App Store notification \(label) for app \(name): \(outcome.changed.count) profile(s) changed"
          + (outcome.unowned.isEmpty ? "" : ", kept for a later owner: \(outcome.unowned.joined(separator: ", "))"))
    }
    if facts.refundRequest?.status == "pending", !outcome.duplicate { refundAnswers?.kick() }
    return AppStoreNotificationAck(notificationUUID: notification.notificationUUID, duplicate: outcome.duplicate)
  }

  /// Apple's refund request as recorded: `pending` when the configuration answers it (with
  /// the customer's consent), else `not_sent` with why.
  private func refundRequest(
    _ notification: NotificationPayload, _ transaction: TransactionPayload, settings: AppStoreSettings, appId: Int64
  ) -> StoredRefundRequest {
    let decision = RefundRequestAnswer.decide(
      settings: settings.refundRequests, productType: transaction.type, delivered: true)
    let reasonNotSent: String? =
      if case .notSent(let why) = decision { why } else { nil }
    return StoredRefundRequest(
      appId: appId, notificationUUID: notification.notificationUUID, transactionId: transaction.transactionId,
      originalTransactionId: transaction.originalTransactionId, productId: transaction.productId,
      productType: transaction.type, environment: transaction.environment,
      reason: notification.data?.consumptionRequestReason, requestedAt: Double(notification.signedDate) / 1000,
      receivedAt: time.now().timeIntervalSince1970, status: reasonNotSent == nil ? "pending" : "not_sent",
      nextTryAt: time.now().timeIntervalSince1970, lastError: reasonNotSent)
  }

  /// A transaction the App Store Server API answered (reconciliation): verified and recorded
  /// as one a notification carries would be; true when a profile's purchases changed.
  func record(reconciled jws: String, app: AppRecord) throws -> Bool {
    let config = try appStoreConfig(appId: app.id)
    let transaction = try verified { try verifier.transaction(jws, for: config.settings) }
    let outcome = try purchases.record(
      appId: app.id,
      AppStoreFacts(
        transactions: [StoredTransaction(payload: transaction, jws: jws)], webhooks: config.compiled.webhooks),
      at: time.now(), derive: profiles.derivation(config.compiled))
    profiles.changed(outcome.changed, app.id)
    if !config.compiled.webhooks.isEmpty { webhooks.kick() }
    return !outcome.changed.isEmpty
  }

  /// Records pages of imported customers' histories (each page's transactions owned by its
  /// profile, credited to no paywall, sending no webhook) in one unit of work; what each page
  /// did, in order. A transaction that does not verify is refused on its own; the rest of its
  /// page is kept.
  func record(imported pages: [(profileId: String, page: [String])], appId: Int64) throws -> [ImportedPage] {
    let config = try appStoreConfig(appId: appId)
    var facts: [AppStoreFacts] = []
    var refusals: [[String]] = []
    for (profileId, page) in pages {
      var stored: [StoredTransaction] = []
      var refused: [String] = []
      for jws in page {
        do {
          let transaction = try verified { try verifier.transaction(jws, for: config.settings) }
          stored.append(StoredTransaction(payload: transaction, jws: jws, variationId: nil, owned: true))
        } catch let error as DomainError {
          refused.append(error.message)
        }
      }
      // No webhooks: the app's backend heard of these purchases from its previous provider, and
      // a year of past renewals replayed to it would be noise (or a welcome e-mail resent).
      facts.append(
        AppStoreFacts(
          transactions: stored, claimant: profileId, sharing: config.compiled.accessLevelSharing, webhooks: []))
      refusals.append(refused)
    }
    let recording = facts.indices.filter { !facts[$0].transactions.isEmpty }
    let outcomes =
      recording.isEmpty
      ? []
      : try purchases.record(
        appId: appId, recording.map { facts[$0] }, at: time.now(), derive: profiles.derivation(config.compiled))
    var pagesDone = facts.indices.map { ImportedPage(recorded: 0, changed: false, refused: refusals[$0]) }
    for (index, outcome) in zip(recording, outcomes) {
      profiles.changed(outcome.changed, appId)
      pagesDone[index].recorded = facts[index].transactions.count
      pagesDone[index].changed = !outcome.changed.isEmpty
    }
    return pagesDone
  }

  /// The app's App Store settings, else 422 `app_store_not_configured`.
  private func appStoreConfig(appId: Int64) throws -> (settings: AppStoreSettings, compiled: CompiledConfig) {
    guard let config = try configs.entry(appId: appId)?.config, let settings = config.appStore else {
      throw DomainError(
        .appStoreNotConfigured, "This app has no app_store settings (bundle_id, environments) in its configuration.")
    }
    return (settings, config)
  }

  /// Runs a verification; a refusal is a 422 with the refusal's code.
  private func verified<T>(_ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as SignedDataError {
      throw DomainError(error.errorCode, error.message)
    }
  }

  static func checkSignedDataLength(_ text: String, path: String) throws {
    guard (1...maxSignedDataLength).contains(text.utf8.count) else {
      throw DomainError.validation([.init(path: path, message: "signed data is 1–\(maxSignedDataLength) bytes")])
    }
  }
}
