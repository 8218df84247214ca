import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Apple's retry rules, as a pure function from an answer to an outcome.
public struct AttributionPolicy: Sendable {
  /// Seconds between 404 retries (Apple: every 5 s).
  public var notReadyDelay: TimeInterval = 5
  /// Attempts that may answer 404 before giving up (Apple: at most 3).
  public var maxNotReady = 3
  /// Waits after failures (5xx, transport), in seconds; the last one repeats.
  public var backoff: [TimeInterval] = [5, 15, 60, 300, 900, 3_600]
  /// Attempts in all before giving up; tokens are valid 24 h, so retries stop well before.
  public var maxAttempts = 10

  /// Apple's defaults.
  public init() {}

  /// The outcome of one answer, given the job's history and whether this app applies
  /// developer-mode (test) attribution.
  public func outcome(
    of answer: AppleAdsAnswer, job: AttributionJob, now: Date, allowTestAttribution: Bool
  ) -> AttributionOutcome {
    let attempts = job.attempts + 1
    switch answer {
    case .payload(let payload):
      if !payload.attribution {
        return .final(.notAttributed, payload: payload, attempts: attempts, error: nil)
      }
      if payload.isDeveloperMode && !allowTestAttribution {
        return .final(
          .testIgnored, payload: payload, attempts: attempts,
          error: "developer-mode attribution; set settings.allow_test_attribution to apply it")
      }
      return .final(.applied, payload: payload, attempts: attempts, error: nil)
    case .invalid(let reason):
      return .final(.invalid, payload: nil, attempts: attempts, error: reason)
    case .notReady:
      let notFound = job.notFound + 1
      if notFound >= maxNotReady || attempts >= maxAttempts {
        return .final(.failed, payload: nil, attempts: attempts, error: "Apple answered 404 \(notFound) times")
      }
      return .retry(
        at: now.addingTimeInterval(notReadyDelay), attempts: attempts, notFound: notFound, error: "404 not ready")
    case .unavailable(let reason):
      if attempts >= maxAttempts {
        return .final(.failed, payload: nil, attempts: attempts, error: reason)
      }
      let failures = attempts - job.notFound
      let wait = backoff[min(max(failures - 1, 0), backoff.count - 1)]
      return .retry(at: now.addingTimeInterval(wait), attempts: attempts, notFound: job.notFound, error: reason)
    }
  }
}
