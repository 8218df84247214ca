import Foundation

/// How long a console session lives: it ends after `idle` without a request and after
/// `absolute` whatever happens, and `last_seen_at` is written at most every `touchResolution`.
public struct SessionPolicy: Sendable {
  /// Ends a session nobody used for this long (OWASP: hours for a low-risk console).
  public var idle: TimeInterval = 12 * 3_600
  /// Ends every session this long after sign-in.
  public var absolute: TimeInterval = 7 * 86_400
  /// How precisely the last use is kept.
  public var touchResolution: TimeInterval = 60
  /// How long an invitation can be accepted.
  public var invitation: TimeInterval = 7 * 86_400

  /// The default lifetimes.
  public init() {}

  /// Whether a session signed in at `created` and last used at `lastSeen` is still open at `now`.
  public func isOpen(created: Date, lastSeen: Date, now: Date) -> Bool {
    now.timeIntervalSince(created) < absolute && now.timeIntervalSince(lastSeen) < idle
  }
}
