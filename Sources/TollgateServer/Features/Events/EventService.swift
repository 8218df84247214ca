import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of SDK events: a batch of 1–100, all or nothing (one bad event rejects the batch,
/// so a retry after fixing it cannot double-count the rest); `flow_shown` is an impression of
/// a variation of the current configuration, counted once per `event_id`; `first_launch_flow`
/// says whether the Apple Ads-targeted flow arrived in time, counted per campaign.
final class EventService: Sendable {
  /// Events in one batch, at most.
  static let maxEventsPerBatch = 100
  /// `first_launch_flow` sources: `AdaptyFlow.Source` raw values.
  static let flowSources: Set<String> = ["segmented", "default_audience", "cache", "fallback"]

  let eventLog: any EventRepository
  let configs: ConfigCache
  let profiles: ProfileService
  let time: any TimeSource

  init(eventLog: any EventRepository, configs: ConfigCache, profiles: ProfileService, time: any TimeSource) {
    self.eventLog = eventLog
    self.configs = configs
    self.profiles = profiles
    self.time = time
  }

  /// Records a batch; 422 with every bad event's path, and nothing recorded, when any is bad.
  func record(_ batch: EventBatchRequest, appId: Int64) throws -> EventBatchResponse {
    guard (1...Self.maxEventsPerBatch).contains(batch.events.count) else {
      throw DomainError.validation([
        .init(path: "$.events", message: "send 1 to \(Self.maxEventsPerBatch) events per batch")
      ])
    }
    let config = try configs.entry(appId: appId)?.config
    let now = time.now()
    var problems: [APIError.Detail] = []
    var records: [EventRecord] = []
    var launches: [(profile: String, aaFlowInTime: Bool)] = []
    for (index, event) in batch.events.enumerated() {
      let path = "$.events[\(index)]"
      guard event.type == EventPayload.flowShown || event.type == EventPayload.firstLaunchFlow else {
        problems.append(.init(path: "\(path).type", message: "unknown event type \(event.type)"))
        continue
      }
      if event.type == EventPayload.firstLaunchFlow, !Self.flowSources.contains(event.source ?? "") {
        problems.append(
          .init(path: "\(path).source", message: "one of \(Self.flowSources.sorted().joined(separator: ", "))"))
      }
      if let eventId = event.eventId, !(1...64).contains(eventId.count) {
        problems.append(.init(path: "\(path).event_id", message: "event ids are 1–64 characters"))
      }
      guard let profile = try? profiles.existing(appId: appId, id: event.profileId) else {
        problems.append(.init(path: "\(path).profile_id", message: "no profile \(event.profileId)"))
        continue
      }
      guard let owner = config?.variationOwners[event.variationId], owner.placementId == event.placementId else {
        problems.append(
          .init(
            path: "\(path).variation_id",
            message: "variation \(event.variationId) is not part of placement \(event.placementId)"))
        continue
      }
      if event.type == EventPayload.firstLaunchFlow {
        // The Apple Ads-targeted flow reached the app in time: the segmented answer, for an
        // audience that reads attribution.
        let targeted = config?.audiences[owner.audienceId]?.targetsAttribution ?? false
        launches.append((profile.id, event.source == "segmented" && targeted))
        continue
      }
      records.append(
        EventRecord(
          eventId: event.eventId, profileId: profile.id, placementId: owner.placementId,
          audienceId: owner.audienceId, variationId: event.variationId, flowId: owner.flowId, receivedAt: now))
    }
    guard problems.isEmpty else { throw DomainError.validation(problems) }
    let accepted = records.isEmpty ? 0 : try eventLog.recordEvents(appId: appId, records)
    for launch in launches {
      try eventLog.recordFirstLaunch(
        appId: appId, profileId: launch.profile, aaFlowInTime: launch.aaFlowInTime, at: now)
    }
    return EventBatchResponse(accepted: accepted + launches.count, duplicates: records.count - accepted)
  }
}
