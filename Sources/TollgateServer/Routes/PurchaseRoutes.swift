import Foundation
import TollgateAPI

extension Endpoints {
  /// Longer than any JWS Apple sends (about 5 KB with its three certificates).
  static let maxSignedDataLength = 32_768

  func addPurchaseRoutes(to router: inout Router) {
    router.add(SDKRoute.transactions) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let body = try decode(TransactionRequest.self, from: request)
      try Self.checkSignedDataLength(body.signedTransaction, path: "$.signed_transaction")
      if let variation = body.variationId, !(1...200).contains(variation.utf8.count) {
        throw DomainError.validation([.init(path: "$.variation_id", message: "a variation id is 1–200 bytes")])
      }
      let profile = try existingProfile(appId: appId, id: request.parameter("profileId"))
      let config = try appStoreConfig(appId: appId)
      let transaction = try verified { try appStoreVerifier.transaction(body.signedTransaction, for: config.settings) }
      let outcome = try store.recordAppStoreFacts(
        appId: appId,
        AppStoreFacts(
          transactions: [
            StoredTransaction(payload: transaction, jws: body.signedTransaction, variationId: body.variationId)
          ], claimant: profile.id, sharing: config.compiled.accessLevelSharing, webhooks: config.compiled.webhooks),
        at: time.now(),
        derive: derivation(config.compiled))
      announce(outcome.changed, appId: appId)
      if !config.compiled.webhooks.isEmpty { webhooks.kick() }
      return .json(Self.payload(outcome.claimant ?? profile))
    }

    // Apple posts here; the JWS is the only proof (no key). 200 only once stored.
    router.add("POST", "/v1/app-store/notifications/{app}") { [self] request in
      let name = request.parameter("app")
      guard let app = try store.app(named: name) else {
        throw DomainError.notFound(.appNotFound, "No app named \(name).")
      }
      let body = try decode(AppStoreNotificationRequest.self, from: request)
      try Self.checkSignedDataLength(body.signedPayload, path: "$.signedPayload")
      let config = try appStoreConfig(appId: app.id)
      let settings = config.settings
      let notification = try verified { try appStoreVerifier.notification(body.signedPayload, for: settings) }
      let transaction = try notification.data?.signedTransactionInfo.map { jws in
        try verified { try appStoreVerifier.transaction(jws, for: settings) }
      }
      let renewal = try notification.data?.signedRenewalInfo.map { jws in
        try verified { try appStoreVerifier.renewalInfo(jws, for: settings) }
      }
      let fact = NotificationFact(
        type: notification.notificationType, subtype: notification.subtype, signedDate: notification.signedDate,
        originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId, renewal: renewal)
      let facts = AppStoreFacts(
        transactions: zip([transaction], [notification.data?.signedTransactionInfo]).compactMap { payload, jws in
          payload.flatMap { payload in jws.map { StoredTransaction(payload: payload, jws: $0) } }
        },
        notification: StoredNotification(
          uuid: notification.notificationUUID, fact: fact, payload: WireCoding.encode(notification),
          jws: body.signedPayload), webhooks: config.compiled.webhooks)
      let outcome = try store.recordAppStoreFacts(
        appId: app.id, facts, at: time.now(), derive: derivation(config.compiled))
      announce(outcome.changed, appId: app.id)
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
      return .json(
        AppStoreNotificationAck(notificationUUID: notification.notificationUUID, duplicate: outcome.duplicate))
    }
  }

  /// The app's App Store settings and configuration; 422 until `app_store` is configured.
  func appStoreConfig(appId: Int64) throws -> (settings: AppStoreSettings, compiled: CompiledConfig) {
    guard let config = try configs.entry(appId: appId)?.config, let settings = config.appStore else {
      throw DomainError(
        .appStoreNotConfigured, "This app has no app_store settings (bundle_id, environments) in its configuration.")
    }
    return (settings, config)
  }

  /// How purchases are derived under this configuration, at the current time.
  func derivation(_ config: CompiledConfig?) -> (PurchaseHistory) -> ProfilePurchases {
    let levels = config?.accessLevels ?? []
    let now = time.now()
    return { PurchaseDerivation.derive($0, levels: levels, now: now) }
  }

  /// Wakes long polls on profiles whose purchases changed.
  func announce(_ profiles: [ProfileRecord], appId: Int64) {
    for profile in profiles { waits.changed(.init(appId: appId, profileId: profile.id)) }
  }

  /// Runs a verification; a refusal is a 422 with the refusal's code.
  func verified<T>(_ body: () throws -> T) throws -> T {
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
