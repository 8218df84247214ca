import Foundation

/// Where the server reads the time, so tests can set it.
public protocol TimeSource: Sendable {
  /// The current time.
  func now() -> Date
  /// Seconds on a scale that only moves forward, for measuring intervals (rate limits).
  func elapsedSeconds() -> Double
}

extension TimeSource {
  /// A clock set by hand moves only when it is moved: its own time is the scale.
  public func elapsedSeconds() -> Double { now().timeIntervalSince1970 }
}

/// The system clock.
public struct SystemTimeSource: TimeSource {
  /// Creates the system clock.
  public init() {}
  /// `Date()`.
  public func now() -> Date { Date() }
  /// The monotonic clock: setting the wall clock moves no bucket.
  public func elapsedSeconds() -> Double { MonotonicClock.seconds() }
}

/// ISO 8601 with milliseconds in UTC, the one timestamp format on the wire.
public enum Timestamp {
  /// Formats a date, e.g. `2026-11-29T12:04:51.123Z`.
  public static func string(_ date: Date) -> String {
    date.formatted(
      Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
  }
}

/// Seconds on a monotonic scale (never set back): what elapsed times and rate limits count in.
package enum MonotonicClock {
  package static let seconds: @Sendable () -> Double = {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
  }
}
