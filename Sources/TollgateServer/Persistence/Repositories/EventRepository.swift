import Foundation
import TollgateAPI

/// Events the SDK reports: flows shown (each client id once) and first-launch outcomes.
public protocol EventRepository: Sendable {
  /// Records events, skipping ids seen before; returns how many were new.
  func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int

  /// Records what the SDK reports of a first launch: whether the Apple Ads-targeted flow
  /// arrived before the timeout (the first report of a profile counts).
  func recordFirstLaunch(appId: Int64, profileId: String, aaFlowInTime: Bool, at: Date) throws

  /// A profile's latest `flow_shown` events, newest first.
  func recentEvents(appId: Int64, profileId: String, limit: Int) throws -> [EventRow]
}
