import Foundation

/// Where the server reads the time, so tests can set it.
public protocol TimeSource: Sendable {
  /// The current time.
  func now() -> Date
}

/// The system clock.
public struct SystemTimeSource: TimeSource {
  /// Creates the system clock.
  public init() {}
  /// `Date()`.
  public func now() -> Date { Date() }
}

/// ISO 8601 with milliseconds in UTC, the one timestamp format on the wire.
public enum Timestamp {
  /// Formats a date, e.g. `2026-11-29T12:04:51.123Z`.
  public static func string(_ date: Date) -> String {
    date.formatted(
      Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
  }
}
