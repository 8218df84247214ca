import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST`/`DELETE /v1/admin/apple-ads/credentials`, `GET /v1/admin/apple-ads/status`,
/// `POST /v1/admin/apple-ads/import` (run now).
struct AppleAdsSpendController: Sendable {
  let auth: Authenticator
  let spend: AppleAdsSpendService

  /// The credentials body: the private key, PEM.
  struct CredentialsBody: Decodable {
    var privateKey: String

    enum CodingKeys: String, CodingKey {
      case privateKey = "private_key"
    }
  }

  func register(on router: inout Router) {
    router.add("POST", "/v1/admin/apple-ads/credentials") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      let body = try request.decodeJSON(CredentialsBody.self)
      return .json(try spend.saveCredentials(appId: caller.appId, privateKey: body.privateKey, by: caller.keyId))
    }
    router.add("DELETE", "/v1/admin/apple-ads/credentials") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(try spend.deleteCredentials(appId: caller.appId, by: caller.keyId))
    }
    router.add("GET", "/v1/admin/apple-ads/status") { request in
      .json(try spend.status(appId: try auth.appId(for: request, needs: .secretKey)))
    }
    router.add("POST", "/v1/admin/apple-ads/import") { request in
      let caller = try auth.caller(for: request, needs: .secretKey)
      return .json(try spend.runNow(appId: caller.appId, by: caller.keyId), status: 202)
    }
  }
}
