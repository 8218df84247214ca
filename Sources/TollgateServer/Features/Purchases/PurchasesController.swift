import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST /v1/sdk/profiles/{profileId}/transactions` (the SDK hands over a StoreKit 2
/// transaction) and `POST /v1/app-store/notifications/{app}` (Apple posts; no key, the JWS is
/// the proof; 200 only once stored).
struct PurchasesController: Sendable {
  let auth: Authenticator
  let purchases: PurchaseService

  func register(on router: inout Router) {
    router.add(SDKRoute.transactions) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let body = try request.decodeJSON(TransactionRequest.self)
      return .json(ProfilePayload(try purchases.record(body, appId: appId, profileId: request.parameter("profileId"))))
    }

    router.add("POST", "/v1/app-store/notifications/{app}") { request in
      // An unknown app is 404 before the body is read.
      let app = try purchases.app(named: request.parameter("app"))
      return .json(try purchases.record(try request.decodeJSON(AppStoreNotificationRequest.self), app: app))
    }
  }
}
