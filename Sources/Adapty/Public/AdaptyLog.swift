import Foundation

/// The SDK's logging: a level and a handler.
public enum AdaptyLog {
  /// Severity, from least to most verbose.
  public enum Level: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Failures only.
    case error = 0
    /// Failures and things that may need attention.
    case warn = 1
    /// Lifecycle events (the default).
    case info = 2
    /// Every request and decision.
    case verbose = 3
    /// Everything, including payloads.
    case debug = 4

    public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
      switch self {
      case .error: return "error"
      case .warn: return "warn"
      case .info: return "info"
      case .verbose: return "verbose"
      case .debug: return "debug"
      }
    }
  }

  /// One log line.
  public struct Record: Sendable, Hashable {
    /// When it was logged.
    public let date: Date
    /// Its level.
    public let level: Level
    /// The text.
    public let message: String
  }

  /// Receives every record at or below `Adapty.logLevel`.
  public typealias Handler = @Sendable (Record) -> Void
}

/// The level type under its pre-4.x name.
public typealias AdaptyLogLevel = AdaptyLog.Level
