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
    router.add("POST", "/v1/admin/apple-ads/credentials", needs: .integrationsWrite, auth) { request, caller in
      let body = try request.decodeJSON(CredentialsBody.self)
      return .json(try spend.saveCredentials(appId: caller.appId, privateKey: body.privateKey, by: caller.actor))
    }
    router.add("DELETE", "/v1/admin/apple-ads/credentials", needs: .integrationsWrite, auth) { request, caller in
      return .json(try spend.deleteCredentials(appId: caller.appId, by: caller.actor))
    }
    router.add("GET", "/v1/admin/apple-ads/status", needs: .integrationsRead, auth) { request, caller in
      .json(try spend.status(appId: caller.appId))
    }
    router.add("POST", "/v1/admin/apple-ads/import", needs: .integrationsWrite, auth) { request, caller in
      return .json(try spend.runNow(appId: caller.appId, by: caller.actor), status: 202)
    }
  }
}
