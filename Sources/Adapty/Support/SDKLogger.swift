import Foundation
import Synchronization

/// The process-wide log level and handler behind `Adapty.logLevel` and `Adapty.setLogHandler`.
final class SDKLogger: Sendable {
  static let shared = SDKLogger()

  private struct State {
    var level: AdaptyLog.Level = .info
    var handler: AdaptyLog.Handler = SDKLogger.printLine
  }

  private let state = Mutex(State())

  var level: AdaptyLog.Level {
    get { state.withLock { $0.level } }
    set { state.withLock { $0.level = newValue } }
  }

  func setHandler(_ handler: @escaping AdaptyLog.Handler) {
    state.withLock { $0.handler = handler }
  }

  func log(_ level: AdaptyLog.Level, _ message: @autoclosure () -> String) {
    let (current, handler) = state.withLock { ($0.level, $0.handler) }
    guard level <= current else { return }
    handler(AdaptyLog.Record(date: Date(), level: level, message: message()))
  }

  static let printLine: AdaptyLog.Handler = { record in
    print("[Adapty] \(record.date.formatted(.iso8601)) \(record.level): \(record.message)")
  }
}

/// Shorthands used throughout the SDK.
package enum Log {
  package static func error(_ message: @autoclosure () -> String) { SDKLogger.shared.log(.error, message()) }
  package static func warn(_ message: @autoclosure () -> String) { SDKLogger.shared.log(.warn, message()) }
  package static func info(_ message: @autoclosure () -> String) { SDKLogger.shared.log(.info, message()) }
  package static func verbose(_ message: @autoclosure () -> String) { SDKLogger.shared.log(.verbose, message()) }
  static func debug(_ message: @autoclosure () -> String) { SDKLogger.shared.log(.debug, message()) }
}
