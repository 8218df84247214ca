import Foundation
import TollgateAPI

extension Endpoints {
  /// Events in one batch, at most.
  static let maxEventsPerBatch = 100

  func addEventRoutes(to router: inout Router) {
    router.add("POST", RoutePaths.events) { [self] request in
      let appId = try auth.appId(for: request, needs: .publicKey)
      let batch = try decode(EventBatchRequest.self, from: request)
      guard (1...Self.maxEventsPerBatch).contains(batch.events.count) else {
        throw HTTPError.validation([
          .init(path: "$.events", message: "send 1 to \(Self.maxEventsPerBatch) events per batch")
        ])
      }
      let config = try configs.entry(appId: appId)?.config
      let now = time.now()
      var problems: [APIError.Detail] = []
      var records: [EventRecord] = []
      for (index, event) in batch.events.enumerated() {
        let path = "$.events[\(index)]"
        guard event.type == EventPayload.flowShown else {
          problems.append(.init(path: "\(path).type", message: "unknown event type \(event.type)"))
          continue
        }
        if let eventId = event.eventId, !(1...64).contains(eventId.count) {
          problems.append(.init(path: "\(path).event_id", message: "event ids are 1–64 characters"))
        }
        guard let profile = try? existingProfile(appId: appId, id: event.profileId) else {
          problems.append(.init(path: "\(path).profile_id", message: "no profile \(event.profileId)"))
          continue
        }
        guard let owner = config?.variationOwners[event.variationId],
          owner.placementId == event.placementId
        else {
          problems.append(
            .init(
              path: "\(path).variation_id",
              message: "variation \(event.variationId) is not part of placement \(event.placementId)"))
          continue
        }
        records.append(
          EventRecord(
            eventId: event.eventId, profileId: profile.id, placementId: owner.placementId,
            audienceId: owner.audienceId, variationId: event.variationId, flowId: owner.flowId,
            receivedAt: now))
      }
      // All or nothing: a batch with one bad event is rejected whole, so a retry after
      // fixing it cannot double-count the rest.
      guard problems.isEmpty else { throw HTTPError.validation(problems) }
      let accepted = try store.recordEvents(appId: appId, records)
      return .json(EventBatchResponse(accepted: accepted, duplicates: records.count - accepted))
    }
  }
}
