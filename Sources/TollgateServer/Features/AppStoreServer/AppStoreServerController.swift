import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST`/`DELETE /v1/admin/app-store/credentials`, `GET /v1/admin/app-store/status`,
/// `POST /v1/admin/app-store/recover` (run the notification recovery now).
struct AppStoreServerController: Sendable {
  let auth: Authenticator
  let server: AppStoreServerService

  /// The credentials body: the In-App Purchase key's `.p8` text.
  struct CredentialsBody: Decodable {
    var privateKey: String

    enum CodingKeys: String, CodingKey {
      case privateKey = "private_key"
    }
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
    router.add("POST", "/v1/admin/app-store/recover") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(try server.recoverNow(appId: caller.appId, by: caller.keyId), status: 202)
    }
  }
}
