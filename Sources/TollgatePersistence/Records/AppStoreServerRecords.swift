import Foundation
import TollgateDomain
import TollgateSupport

/// An app's In-App Purchase key as stored: sealed with the server's secrets key.
public struct StoredAppStoreCredentials: Sendable, Hashable {
  public var sealedKey: String
  public var keyFingerprint: String
  public var createdAt: Double
}

/// The notification-recovery job of one app and environment.
public struct RecoveryJob: Sendable, Hashable {
  public var appId: Int64
  /// `Production` or `Sandbox`.
  public var environment: String
  /// `scheduled` or `failed` (stopped until the credentials change).
  public var status: String
  public var nextRunAt: Double
  public var leaseOwner: String?
  public var leaseUntil: Double
  /// The window of the run in progress (seconds), and the page it reached.
  public var runStart: Double?
  public var runEnd: Double?
  public var pageToken: String?
  /// The window the last completed run covered.
  public var coveredFrom: Double?
  public var coveredTo: Double?
  /// Notifications recovered (applied now), already known (delivered before), refused (did
  /// not verify): counted over every run.
  public var recovered: Int64
  public var alreadyKnown: Int64
  public var refused: Int64
  public var attempts: Int64
  public var lastCallAt: Double?
  public var lastSuccessAt: Double?
  public var lastError: String?
  public var failure: String?
  /// Subscriptions reconciliation found changed (a renewal, expiry or refund never notified).
  public var reconciled: Int64
}

/// How a recovery run ended.
public enum RecoveryOutcome: Sendable, Hashable {
  /// The window is covered; the next run is due at `next`.
  case completed(next: Date, from: Date, to: Date)
  /// A transient failure: try again at `next`, the page reached kept.
  case retry(next: Date, error: String)
  /// Stopped until the credentials change (`failure` is its kind).
  case failed(failure: String, error: String)
}

/// What one page of a run counted.
public struct RecoveryPageCounts: Sendable, Hashable {
  public var recovered = 0
  public var alreadyKnown = 0
  public var refused = 0

  public init(recovered: Int = 0, alreadyKnown: Int = 0, refused: Int = 0) {
    self.recovered = recovered
    self.alreadyKnown = alreadyKnown
    self.refused = refused
  }
}

/// An operator's request for Apple's TEST notification.
public struct TestNotificationRequest: Sendable, Hashable {
  public var appId: Int64
  public var environment: String
  public var requestedAt: Double
  /// When Apple accepted the request, and the token it gave.
  public var sentAt: Double?
  public var token: String?
  /// Why Apple could not be asked.
  public var error: String?
  /// When the TEST notification arrived (the first received since the request).
  public var receivedAt: Double?
}
