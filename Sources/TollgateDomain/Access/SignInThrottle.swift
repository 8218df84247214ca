import Foundation

/// How failed sign-ins slow an attacker down, per account and per address alike: the first
/// few failures cost nothing, then each one doubles the wait before the next try is heard
/// (1 s, 2 s, 4 s … at most `maximumDelay`), and after `lockAfter` failures in a row the account
/// is locked for `lockDuration` (an owner can lift it sooner). A success clears the count.
public struct SignInThrottle: Sendable {
  /// Failures that cost nothing.
  public var freeFailures = 3
  /// The longest wait between tries.
  public var maximumDelay: TimeInterval = 60
  /// Failures in a row that lock an account.
  public var lockAfter = 20
  /// How long a lock lasts.
  public var lockDuration: TimeInterval = 15 * 60

  /// The default throttle.
  public init() {}

  /// What is known of one account's or address's failures.
  public struct Record: Sendable, Equatable {
    /// Failures since the last success.
    public var failures: Int
    /// The latest failure.
    public var lastFailure: Date?
    /// Locked until then (accounts only).
    public var lockedUntil: Date?

    /// A record.
    public init(failures: Int, lastFailure: Date?, lockedUntil: Date?) {
      self.failures = failures
      self.lastFailure = lastFailure
      self.lockedUntil = lockedUntil
    }
  }

  /// The wait owed after `failures` failures.
  public func delay(after failures: Int) -> TimeInterval {
    guard failures > freeFailures else { return 0 }
    return min(maximumDelay, pow(2, Double(min(failures - freeFailures - 1, 30))))
  }

  /// When the next try may be heard (nil: now).
  public func nextTry(_ record: Record, now: Date) -> Date? {
    if let locked = record.lockedUntil, locked > now { return locked }
    guard let last = record.lastFailure else { return nil }
    let due = last.addingTimeInterval(delay(after: record.failures))
    return due > now ? due : nil
  }

  /// The record after one more failure at `now`; an account is locked at `lockAfter`.
  public func failed(_ record: Record, now: Date, locks: Bool) -> Record {
    var next = record
    next.failures += 1
    next.lastFailure = now
    if locks, next.failures >= lockAfter { next.lockedUntil = now.addingTimeInterval(lockDuration) }
    return next
  }
}
