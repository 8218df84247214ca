import Foundation
import TollgateAPI

/// Apple Ads tokens waiting for Apple, and their outcomes: a durable queue that survives restarts.
public protocol AttributionJobRepository: Sendable {
  /// Records a token for a profile unless the same token was recorded before; marks the
  /// profile's `apple_ads` status pending unless already applied.
  func enqueueAttribution(appId: Int64, profileId: String, token: String, tokenHash: String, at: Date) throws
    -> (AttributionJob, created: Bool)

  /// Takes up to `limit` due pending jobs and pushes their next attempt `lease` seconds
  /// ahead, so a crashed worker's jobs come back and two workers never take the same job.
  func claimAttributionJobs(now: Date, lease: TimeInterval, limit: Int) throws -> [AttributionJob]

  /// Stores the worker's decision; a final `applied` adds the source to the profile (and
  /// bumps its version) in the same transaction. Returns the profile when it changed.
  func finishAttribution(_ job: AttributionJob, _ outcome: AttributionOutcome, at: Date, webhooks: [WebhookConfig])
    throws -> ProfileRecord?

  /// Pending jobs.
  func attributionQueueDepth() throws -> Int

  /// The app's attribution tokens by outcome.
  func attributionFunnel(appId: Int64) throws -> AttributionFunnel
}
