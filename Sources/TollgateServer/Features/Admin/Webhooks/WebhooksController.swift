import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `GET /v1/admin/webhooks/deliveries`, `POST …/deliveries/{deliveryId}/redeliver` and
/// `POST /v1/admin/webhooks/{webhookId}/rotate-secret`.
struct WebhooksController: Sendable {
  let auth: Authenticator
  let webhooks: WebhookAdminService

  func register(on router: inout Router) {
    router.add("GET", "/v1/admin/webhooks/deliveries") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(
        DeliveriesPayload(
          deliveries: try webhooks.deliveries(
            appId: appId, status: request.query["status"], limit: request.query["limit"])))
    }

    router.add("POST", "/v1/admin/webhooks/deliveries/{deliveryId}/redeliver") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(
        DeliveriesPayload(
          deliveries: try webhooks.redeliver(
            appId: caller.appId, id: request.parameter("deliveryId"), by: caller.keyId)))
    }

    router.add("POST", "/v1/admin/webhooks/{webhookId}/rotate-secret") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let id = request.parameter("webhookId")
      return .json(
        WebhookSecretPayload(
          webhookId: id, secret: try webhooks.rotateSecret(appId: caller.appId, webhookId: id, by: caller.keyId)))
    }
  }
}

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
