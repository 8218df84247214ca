import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Events the SDK reports: flows shown (each client id once) and first-launch outcomes.
public protocol EventRepository: Sendable {
  /// Records events, skipping ids seen before; returns how many were new.
  func recordEvents(appId: Int64, _ events: [EventRecord]) throws -> Int

  /// Records what the SDK reports of a first launch: whether the Apple Ads-targeted flow
  /// arrived before the timeout (the first report of a profile counts).
  func recordFirstLaunch(appId: Int64, profileId: String, aaFlowInTime: Bool, at: Date) throws

  /// A profile's latest `flow_shown` events, newest first.
  func recentEvents(appId: Int64, profileId: String, limit: Int) throws -> [EventRow]

  /// Deletes up to `limit` of the oldest raw flow views received before `cutoff` (all apps),
  /// in one short transaction, and notes per app that views before `cutoff` are gone; returns
  /// how many went. Rollups and each profile's first view are kept.
  func expireEvents(before cutoff: Date, limit: Int) throws -> Int

  /// Drops whole months of raw flow views that ended before `cutoff` (where views are
  /// partitioned by month: PostgreSQL), noting per app that views before the month's end are
  /// gone; returns how many views went. Elsewhere nothing happens (0).
  func dropExpiredEventMonths(before cutoff: Date) throws -> Int

  /// The time before which the app's raw flow views may have been expired; nil if none were.
  func eventsExpiredBefore(appId: Int64) throws -> Date?
}
