import Foundation
import TollgateAPI

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
      let name = request.parameter("app")
      return .json(try purchases.record(try decodeNotification(request, app: name), appName: name))
    }
  }

  /// The body, once the app is known to exist: an unknown app is 404 before the body is read.
  private func decodeNotification(_ request: Request, app name: String) throws -> AppStoreNotificationRequest {
    guard try purchases.appExists(named: name) else {
      throw DomainError.notFound(.appNotFound, "No app named \(name).")
    }
    return try request.decodeJSON(AppStoreNotificationRequest.self)
  }
}
