import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST /v1/sdk/events`: batches of flows shown and first-launch outcomes.
struct EventsController: Sendable {
  let auth: Authenticator
  let events: EventService

  func register(on router: inout Router) {
    router.add(SDKRoute.events) { request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      return .json(try events.record(try request.decodeJSON(EventBatchRequest.self), appId: appId))
    }
  }
}
