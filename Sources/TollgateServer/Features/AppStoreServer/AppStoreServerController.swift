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
    router.add("POST", "/v1/admin/app-store/credentials") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let body = try request.decodeJSON(CredentialsBody.self)
      return .json(try server.saveCredentials(appId: caller.appId, privateKey: body.privateKey, by: caller.keyId))
    }
    router.add("DELETE", "/v1/admin/app-store/credentials") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(try server.deleteCredentials(appId: caller.appId, by: caller.keyId))
    }
    router.add("GET", "/v1/admin/app-store/status") { request in
      .json(try server.status(appId: try auth.appId(for: request, needs: .secretKey)))
    }
    router.add("POST", "/v1/admin/app-store/test-notification") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let environment = request.body.isEmpty ? nil : try request.decodeJSON(TestBody.self).environment
      return .json(
        try server.requestTestNotification(appId: caller.appId, environment: environment, by: caller.keyId),
        status: 202)
    }
    router.add("GET", "/v1/admin/app-store/orders/{orderId}") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
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
    router.add("POST", "/v1/admin/profiles/{profileId}/app-store/refresh") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let profileId = request.parameter("profileId")
      let deferred = DeferredResponse()
      let (server, errors) = (server, errors)
      Task {
        do {
          let refresh = try await server.refreshHistory(appId: caller.appId, profileId: profileId, by: caller.keyId)
          _ = deferred.complete(.json(refresh))
        } catch {
          _ = deferred.complete(errors.answer { throw error })
        }
      }
      return .deferred(deferred)
    }
    router.add("GET", "/v1/admin/app-store/refund-requests") { request in
      let appId = try auth.appId(for: request, needs: .secretKey)
      return .json(try server.refundRequests(appId: appId, from: request.query["from"], to: request.query["to"]))
    }
    router.add("POST", "/v1/admin/app-store/recover") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(try server.recoverNow(appId: caller.appId, by: caller.keyId), status: 202)
    }
  }
}
