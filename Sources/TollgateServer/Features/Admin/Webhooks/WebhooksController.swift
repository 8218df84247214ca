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
    router.add("GET", "/v1/admin/webhooks/deliveries", needs: .support, auth) { request, caller in
      let appId = caller.appId
      return .json(
        DeliveriesPayload(
          deliveries: try webhooks.deliveries(
            appId: appId, status: request.query["status"], limit: request.query["limit"])))
    }

    router.add("POST", "/v1/admin/webhooks/deliveries/{deliveryId}/redeliver", needs: .support, auth) {
      request, caller in
      return .json(
        DeliveriesPayload(
          deliveries: [
            try webhooks.redeliver(appId: caller.appId, id: request.parameter("deliveryId"), by: caller.actor)
          ]))
    }

    router.add("POST", "/v1/admin/webhooks/{webhookId}/rotate-secret", needs: .webhooksWrite, auth) { request, caller in
      let id = request.parameter("webhookId")
      return .json(
        WebhookSecretPayload(
          webhookId: id, secret: try webhooks.rotateSecret(appId: caller.appId, webhookId: id, by: caller.actor)))
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
