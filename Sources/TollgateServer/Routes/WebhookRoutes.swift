import Foundation
import TollgateAPI

/// `GET /v1/admin/webhooks/deliveries`.
struct DeliveriesPayload: Codable, Sendable {
  var deliveries: [WebhookDelivery]
}

/// A rotated secret, shown once.
struct WebhookSecretPayload: Codable, Sendable {
  var webhookId: String
  var secret: String

  enum CodingKeys: String, CodingKey {
    case secret
    case webhookId = "webhook_id"
  }
}

extension Endpoints {
  func addWebhookRoutes(to router: inout Router) {
    router.add("GET", "/v1/admin/webhooks/deliveries") { [self] request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      let status = request.query["status"]
      if let status, !["pending", "delivered", "parked"].contains(status) {
        throw DomainError(.badParameter, "status is pending, delivered or parked.")
      }
      let limit = Int(request.query["limit"] ?? "100") ?? 0
      guard (1...1000).contains(limit) else { throw DomainError(.badParameter, "limit is 1–1000.") }
      return .json(
        DeliveriesPayload(deliveries: try store.webhookDeliveries(appId: appId, status: status, limit: limit)))
    }

    router.add("POST", "/v1/admin/webhooks/deliveries/{deliveryId}/redeliver") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let appId = caller.appId
      let text = request.parameter("deliveryId")
      guard let id = Int64(text), try store.redeliverWebhook(appId: appId, id: id, at: time.now()) else {
        throw DomainError.notFound(.deliveryNotFound, "No webhook delivery \(text) in this app.")
      }
      try store.audit(
        appId: appId,
        AuditRecord(
          at: time.now(), actor: caller.keyId, action: "webhook.redelivered",
          detail: AuditDetail.json(["delivery_id": .int(id)])))
      webhooks.kick()
      return .json(
        DeliveriesPayload(
          deliveries: try store.webhookDeliveries(appId: appId, status: nil, limit: 1000)
            .filter { $0.id == id }))
    }

    router.add("POST", "/v1/admin/webhooks/{webhookId}/rotate-secret") { [self] request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let appId = caller.appId
      let id = request.parameter("webhookId")
      guard try configs.entry(appId: appId)?.config.webhooks.contains(where: { $0.id == id }) == true else {
        throw DomainError.notFound(.webhookNotFound, "No webhook \(id) in this app's configuration.")
      }
      guard let secrets else {
        throw DomainError(.secretsKeyMissing, "The server has no secrets key to seal a new secret with.")
      }
      let secret = try store.rotateWebhookSecret(appId: appId, id: id, box: secrets, at: time.now())
      try store.audit(
        appId: appId,
        AuditRecord(
          at: time.now(), actor: caller.keyId, action: "webhook.secret_rotated",
          detail: AuditDetail.json(["webhook_id": .string(id)])))
      return .json(WebhookSecretPayload(webhookId: id, secret: secret))
    }
  }
}
