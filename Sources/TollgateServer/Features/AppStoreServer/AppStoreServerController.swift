import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST`/`DELETE /v1/admin/app-store/credentials`, `GET /v1/admin/app-store/status`,
/// `POST /v1/admin/app-store/recover` (run the notification recovery now),
/// `POST /v1/admin/app-store/test-notification` (the setup check),
/// `GET /v1/admin/app-store/orders/{orderId}` (a customer by the order id on their receipt),
/// `POST /v1/admin/profiles/{profileId}/app-store/refresh` (a customer's history from Apple),
/// `GET /v1/admin/app-store/refund-requests` (Apple's refund requests and their answers).
struct AppStoreServerController: Sendable {
  let auth: Authenticator
  let server: AppStoreServerService
  let errors: ErrorMapping

  /// The credentials body: the In-App Purchase key's `.p8` text.
  struct CredentialsBody: Decodable {
    var privateKey: String

    enum CodingKeys: String, CodingKey {
      case privateKey = "private_key"
    }
  }

  /// The test-notification body (optional): the environment.
  struct TestBody: Decodable {
    var environment: String?
  }

  func register(on router: inout Router) {
    router.add("POST", "/v1/admin/app-store/credentials", needs: .integrationsWrite, auth) { request, caller in
      let body = try request.decodeJSON(CredentialsBody.self)
      return .json(try server.saveCredentials(appId: caller.appId, privateKey: body.privateKey, by: caller.actor))
    }
    router.add("DELETE", "/v1/admin/app-store/credentials", needs: .integrationsWrite, auth) { request, caller in
      return .json(try server.deleteCredentials(appId: caller.appId, by: caller.actor))
    }
    router.add("GET", "/v1/admin/app-store/status", needs: .integrationsRead, auth) { request, caller in
      .json(try server.status(appId: caller.appId))
    }
    router.add("POST", "/v1/admin/app-store/test-notification", needs: .integrationsWrite, auth) { request, caller in
      let environment = request.body.isEmpty ? nil : try request.decodeJSON(TestBody.self).environment
      return .json(
        try server.requestTestNotification(appId: caller.appId, environment: environment, by: caller.actor),
        status: 202)
    }
    router.add("GET", "/v1/admin/app-store/orders/{orderId}", needs: .support, auth) { request, caller in
      let appId = caller.appId
      let orderId = request.parameter("orderId")
      // Answered when Apple has: the connection waits without a thread.
      let deferred = DeferredResponse()
      let (server, errors) = (server, errors)
      Task {
        do {
          let order = try await server.lookUpOrder(appId: appId, orderId: orderId)
          _ = deferred.complete(.json(order))
        } catch {
          _ = deferred.complete(errors.answer { throw error })
        }
      }
      return .deferred(deferred)
    }
    router.add("POST", "/v1/admin/profiles/{profileId}/app-store/refresh", needs: .support, auth) { request, caller in
      let profileId = request.parameter("profileId")
      let deferred = DeferredResponse()
      let (server, errors) = (server, errors)
      Task {
        do {
          let refresh = try await server.refreshHistory(appId: caller.appId, profileId: profileId, by: caller.actor)
          _ = deferred.complete(.json(refresh))
        } catch {
          _ = deferred.complete(errors.answer { throw error })
        }
      }
      return .deferred(deferred)
    }
    router.add("GET", "/v1/admin/app-store/refund-requests", needs: .integrationsRead, auth) { request, caller in
      let appId = caller.appId
      return .json(try server.refundRequests(appId: appId, from: request.query["from"], to: request.query["to"]))
    }
    router.add("POST", "/v1/admin/app-store/recover", needs: .integrationsWrite, auth) { request, caller in
      return .json(try server.recoverNow(appId: caller.appId, by: caller.actor), status: 202)
    }
  }
}
