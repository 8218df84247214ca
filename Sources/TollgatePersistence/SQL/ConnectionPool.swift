import Dispatch
import Foundation
import Synchronization
import TollgateDomain
import TollgateSupport

/// A fixed set of connections handed to one caller at a time. Waiting for a free one is
/// bounded, so an exhausted or dead database answers `unavailable` instead of hanging.
final class ConnectionPool: Sendable {
  private struct Handle: @unchecked Sendable {
    let connection: any SQLConnection
  }

  private let idle: Mutex<[Handle]>
  private let available: DispatchSemaphore
  private let size: Int
  private let waitLimit: TimeInterval
  private let finish: @Sendable (any SQLConnection) -> Void

  init(
    _ connections: [any SQLConnection], waitLimit: TimeInterval = 10,
    finish: @escaping @Sendable (any SQLConnection) -> Void = { _ in }
  ) {
    idle = Mutex(connections.map(Handle.init))
    available = DispatchSemaphore(value: connections.count)
    size = connections.count
    self.waitLimit = waitLimit
    self.finish = finish
  }

  @discardableResult
  func with<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
    guard available.wait(timeout: .now() + waitLimit) == .success else {
      throw StoreError.unavailable("no database connection became free within \(Int(waitLimit)) s")
    }
    guard let handle = idle.withLock({ $0.popLast() }) else {
      available.signal()
      throw StoreError.database("store is closed")
    }
    defer {
      idle.withLock { $0.append(handle) }
      available.signal()
    }
    return try body(handle.connection)
  }

  /// Runs `body` on every connection, each taken out of use meanwhile (settings that are
  /// per connection).
  func each(_ body: (any SQLConnection) throws -> Void) throws {
    for _ in 0..<size { available.wait() }
    defer { for _ in 0..<size { available.signal() } }
    for handle in idle.withLock({ $0 }) { try body(handle.connection) }
  }

  /// Takes every connection back (nothing is mid-statement), runs `finish` on each, and
  /// keeps them out of use.
  func close() {
    for _ in 0..<size { available.wait() }
    let handles = idle.withLock { value -> [Handle] in
      defer { value = [] }
      return value
    }
    for handle in handles { finish(handle.connection) }
    for _ in 0..<size { available.signal() }
  }
}
