import CLibPQ
import Foundation
import Synchronization
import TollgateDomain
import TollgateSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Hears, on a connection of its own, the `NOTIFY tollgate_profiles` every instance sends in
/// the transaction that changes a profile, and forgets that profile in this instance's cache.
/// While the connection is down nothing says what others changed, so the cache is bypassed
/// (and emptied) until it is back.
final class ProfileChangeListener: Sendable {
  static let channel = ProfileAnnouncements.channel
  /// Payload prefix of a configuration change (`config:<app id>`), told apart from profiles.
  static let configPrefix = ProfileAnnouncements.configPrefix

  private let conninfo: String
  private let cache: ProfileCache
  private let stopped = Atomic<Bool>(false)
  private let finished = DispatchSemaphore(value: 0)

  init(conninfo: String, cache: ProfileCache) {
    self.conninfo = conninfo
    self.cache = cache
    cache.bypass = true
    let thread = Thread { [self] in
      run()
      finished.signal()
    }
    thread.name = "tollgate-profile-changes"
    thread.start()
  }

  /// Whether it listens now (until then, and whenever the connection is lost, the cache is bypassed).
  var listening: Bool { !cache.bypass }

  /// Stops listening (waits up to a second for the thread).
  func stop() {
    stopped.store(true, ordering: .relaxed)
    _ = finished.wait(timeout: .now() + 1)
  }

  private func run() {
    while !stopped.load(ordering: .relaxed) {
      guard let connection = PQconnectdb(conninfo), PQstatus(connection) == CONNECTION_OK else {
        cache.bypass = true
        Thread.sleep(forTimeInterval: 0.5)
        continue
      }
      defer { PQfinish(connection) }
      let listened = PQexec(connection, "LISTEN \(Self.channel)")
      let ok = PQresultStatus(listened) == PGRES_COMMAND_OK
      PQclear(listened)
      guard ok else {
        cache.bypass = true
        Thread.sleep(forTimeInterval: 0.5)
        continue
      }
      // Anything may have changed while nobody listened.
      cache.clear()
      cache.configAnnounced()
      cache.bypass = false
      while !stopped.load(ordering: .relaxed) {
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, 200)
        guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else {
          cache.bypass = true
          break
        }
        while let note = PQnotifies(connection) {
          if let extra = note.pointee.extra {
            let payload = String(cString: extra)
            if payload.hasPrefix(Self.configPrefix) {
              cache.configAnnounced()
            } else if let colon = payload.firstIndex(of: ":"), let appId = Int64(payload[..<colon]) {
              cache.invalidate(appId: appId, id: String(payload[payload.index(after: colon)...]))
            }
          }
          PQfreemem(note)
        }
      }
    }
  }
}
