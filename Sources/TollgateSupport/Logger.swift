import Foundation
import Synchronization

/// Severity of a log line.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
  case debug, info, warn, error

  /// Parses `debug`, `info`, `warn` or `error`.
  public init?(name: String) {
    guard let level = Self.allCases.first(where: { "\($0)" == name.lowercased() }) else {
      return nil
    }
    self = level
  }

  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Writes one line per event to a sink (standard error by default).
public struct Logger: Sendable {
  /// Lines below this level are dropped.
  public var level: LogLevel
  private let sink: @Sendable (String) -> Void

  /// A logger that writes to standard error.
  public init(level: LogLevel = .info) {
    self.init(level: level) { line in
      FileHandle.standardError.write(Data((line + "\n").utf8))
    }
  }

  /// A logger that hands lines to `sink` (tests collect them).
  public init(level: LogLevel, sink: @escaping @Sendable (String) -> Void) {
    self.level = level
    self.sink = sink
  }

  /// Logs a message at a level.
  public func log(_ messageLevel: LogLevel, _ message: @autoclosure () -> String) {
    guard messageLevel >= level else { return }
    sink("\(Timestamp.string(Date())) \(messageLevel) \(message())")
  }

  /// Logs at debug level.
  public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
  /// Logs at info level.
  public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
  /// Logs at warn level.
  public func warn(_ message: @autoclosure () -> String) { log(.warn, message()) }
  /// Logs at error level.
  public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
