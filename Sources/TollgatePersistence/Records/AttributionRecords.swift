import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// A token waiting to be resolved with Apple, or its final outcome.
public struct AttributionJob: Sendable, Hashable {
  public var appId: Int64
  public var profileId: String
  /// SHA-256 of the token: the same token twice is one job.
  public var tokenHash: String
  /// The token; cleared once the outcome is final.
  public var token: String
  public var status: AttributionStatus
  /// Calls made to Apple so far.
  public var attempts: Int
  /// How many of them answered 404 (not ready yet).
  public var notFound: Int
  public var nextAttemptAt: Date
  public var lastError: String?
}

/// What the worker decided for a job.
public enum AttributionOutcome: Sendable, Hashable {
  /// Try again at this time.
  case retry(at: Date, attempts: Int, notFound: Int, error: String)
  /// Done: the final status, with Apple's payload when there is one.
  case final(AttributionStatus, payload: AppleAdsPayload?, attempts: Int, error: String?)
}

/// Attribution tokens of one app by what became of them.
public struct AttributionFunnel: Encodable, Sendable, Hashable {
  /// Every token accepted (one per profile and distinct token).
  public var received: Int64 = 0
  /// Still waiting for Apple.
  public var pending: Int64 = 0
  /// Apple answered `attribution: true` and the profile got it.
  public var applied: Int64 = 0
  /// Apple answered `attribution: false`.
  public var notAttributed: Int64 = 0
  /// Apple refused the token, or it never resolved.
  public var failed: Int64 = 0
  /// Developer-mode answers, not applied.
  public var testIgnored: Int64 = 0

  /// Resolved one way or another (derived, so it is only encoded).
  public var resolved: Int64 { received - pending }

  enum CodingKeys: String, CodingKey {
    case received, resolved, pending, applied, failed
    case notAttributed = "not_attributed"
    case testIgnored = "test_ignored"
  }

  public init() {}

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(received, forKey: .received)
    try container.encode(resolved, forKey: .resolved)
    try container.encode(pending, forKey: .pending)
    try container.encode(applied, forKey: .applied)
    try container.encode(notAttributed, forKey: .notAttributed)
    try container.encode(failed, forKey: .failed)
    try container.encode(testIgnored, forKey: .testIgnored)
  }
}
