import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// The webhook outbox: sealed signing secrets and deliveries, written with the change they report.
public protocol WebhookOutboxRepository: Sendable {
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

  /// Puts a delivery back in line for another 72 hours and answers it as stored then; nil when
  /// the app has no such delivery.
  func redeliverWebhook(appId: Int64, id: Int64, at: Date) throws -> WebhookDelivery?
}
