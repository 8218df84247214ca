import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgateSupport

/// `POST /v1/admin/profiles/{profileId}/access-levels/{accessLevelId}/grant` and
/// `…/revoke`: access levels given and taken back by hand.
struct AccessGrantsController: Sendable {
  let auth: Authenticator
  let grants: AccessGrantService

  func register(on router: inout Router) {
    router.add("POST", "/v1/admin/profiles/{profileId}/access-levels/{accessLevelId}/grant", needs: .support, auth) {
      request, caller in
      let body = try request.decodeJSON(AccessGrantService.GrantBody.self)
      return .json(
        try grants.grant(
          appId: caller.appId, profileId: request.parameter("profileId"),
          accessLevel: request.parameter("accessLevelId"), body, by: caller.actor))
    }
    router.add("POST", "/v1/admin/profiles/{profileId}/access-levels/{accessLevelId}/revoke", needs: .support, auth) {
      request, caller in
      return .json(
        try grants.revoke(
          appId: caller.appId, profileId: request.parameter("profileId"),
          accessLevel: request.parameter("accessLevelId"), by: caller.actor))
    }
  }
}
