import Foundation
import Synchronization
import TollgateCommandLine
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The demo server's clock: the system clock moved back by a settable number of seconds, so
/// the simulated installs can be spread over the last days (the reports and the console's
/// charts then have days to show) while waits and timeouts still run in real time.
final class DemoTime: TimeSource {
  private let offset = Mutex<TimeInterval>(0)

  /// How far behind the system clock the server's time runs.
  func set(behind seconds: TimeInterval) { offset.withLock { $0 = seconds } }

  func now() -> Date { Date().addingTimeInterval(-offset.withLock { $0 }) }
}
