import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// What an operator does with webhooks: reads deliveries, sends one again (another 72 hours
/// of retries), rotates a webhook's signing secret (shown once). Each action is audited.
final class WebhookAdminService: Sendable {
  let apps: any AppRepository
  let outbox: any WebhookOutboxRepository
  let configs: ConfigCache
  let secrets: SecretBox?
  let worker: WebhookWorker
  let time: any TimeSource

  init(
    apps: any AppRepository, outbox: any WebhookOutboxRepository, configs: ConfigCache, secrets: SecretBox?,
    worker: WebhookWorker, time: any TimeSource
  ) {
    self.apps = apps
    self.outbox = outbox
    self.configs = configs
    self.secrets = secrets
    self.worker = worker
    self.time = time
  }

  /// The app's deliveries, newest first: `status` pending, delivered or parked; `limit` 1–1000.
  func deliveries(appId: Int64, status: String?, limit text: String?) throws -> [WebhookDelivery] {
    if let status, !["pending", "delivered", "parked"].contains(status) {
      throw DomainError(.badParameter, "status is pending, delivered or parked.")
    }
    let limit = Int(text ?? "100") ?? 0
    guard (1...1000).contains(limit) else { throw DomainError(.badParameter, "limit is 1–1000.") }
    return try outbox.webhookDeliveries(appId: appId, status: status, limit: limit)
  }

  /// Puts a delivery back in line; returns it as the update left it, pending (404
  /// `delivery_not_found`). Not read back afterwards: the worker, kicked, may already be
  /// sending it, and a list of the newest deliveries would not hold an old one.
  func redeliver(appId: Int64, id text: String, by actor: String) throws -> WebhookDelivery {
    guard let id = Int64(text), let delivery = try outbox.redeliverWebhook(appId: appId, id: id, at: time.now())
    else {
      throw DomainError.notFound(.deliveryNotFound, "No webhook delivery \(text) in this app.")
    }
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "webhook.redelivered",
        detail: AuditDetail.json(["delivery_id": .int(id)])))
    worker.kick()
    return delivery
  }

  /// A new signing secret for a configured webhook, in clear this once.
  func rotateSecret(appId: Int64, webhookId id: String, by actor: String) throws -> String {
    guard try configs.entry(appId: appId)?.config.webhooks.contains(where: { $0.id == id }) == true else {
      throw DomainError.notFound(.webhookNotFound, "No webhook \(id) in this app's configuration.")
    }
    guard let secrets else {
      throw DomainError(.secretsKeyMissing, "The server has no secrets key to seal a new secret with.")
    }
    let secret = try outbox.rotateWebhookSecret(appId: appId, id: id, box: secrets, at: time.now())
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "webhook.secret_rotated",
        detail: AuditDetail.json(["webhook_id": .string(id)])))
    return secret
  }
}
