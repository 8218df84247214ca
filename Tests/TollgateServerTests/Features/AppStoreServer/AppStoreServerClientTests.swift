import Foundation
import Testing

@testable import TollgateDomain
@testable import TollgateServer

#if canImport(Glibc)
  import Glibc
#endif

/// The App Store Server API client against a listener that misbehaves at the socket level.
@Suite("App Store Server API client")
struct AppStoreServerClientTests {
  /// A loopback listener that closes the first `dropped` connections after reading their
  /// request, without a byte of answer (a keep-alive connection closed by the far end just as it
  /// was reused reads the same), and answers later ones with `answer`.
  final class DroppingListener: @unchecked Sendable {
    let port: UInt16
    private let socket: Int32
    private let lock = NSLock()
    private var accepted = 0

    init(dropped: Int, answer: String) throws {
      let listening = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      socket = listening
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      var size = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
          bind(listening, pointer, size) == 0 && listen(listening, 8) == 0
            && getsockname(listening, pointer, &size) == 0
        }
      }
      guard bound else { throw POSIXError(.EADDRINUSE) }
      port = UInt16(bigEndian: address.sin_port)
      Thread.detachNewThread { [self] in
        while true {
          let connection = accept(listening, nil, nil)
          guard connection >= 0 else { return }
          let number = lock.withLock {
            accepted += 1
            return accepted
          }
          var buffer = [UInt8](repeating: 0, count: 65_536)
          _ = recv(connection, &buffer, buffer.count, 0)
          if number > dropped {
            let bytes = Array(answer.utf8)
            _ = send(connection, bytes, bytes.count, Int32(MSG_NOSIGNAL))
          }
          close(connection)
        }
      }
    }

    /// Connections accepted so far.
    var connections: Int { lock.withLock { accepted } }

    func stop() {
      shutdown(socket, Int32(SHUT_RDWR))
      close(socket)
    }
  }

  static let emptyHistory =
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 63\r\nConnection: close\r\n\r\n"
    + #"{"notificationHistory":[],"hasMore":false,"paginationToken":""}"#

  @Test("a connection closed without an answer is tried once more on a new one; twice is an outage")
  func droppedConnection() async throws {
    let once = try DroppingListener(dropped: 1, answer: Self.emptyHistory)
    defer { once.stop() }
    let url = URL(string: "http://127.0.0.1:\(once.port)/")!
    let client = AppStoreServerClient(productionURL: url, sandboxURL: url, timeout: 10)
    let request = NotificationHistoryRequest(startDate: 0, endDate: 1)
    let page = try await client.notificationHistory(
      environment: "Sandbox", token: "t", request: request, paginationToken: nil)
    #expect(page.hasMore == false && page.notificationHistory.isEmpty)
    #expect(once.connections == 2)

    let always = try DroppingListener(dropped: 2, answer: Self.emptyHistory)
    defer { always.stop() }
    let dead = URL(string: "http://127.0.0.1:\(always.port)/")!
    let failing = AppStoreServerClient(productionURL: dead, sandboxURL: dead, timeout: 10)
    await #expect {
      _ = try await failing.notificationHistory(
        environment: "Sandbox", token: "t", request: request, paginationToken: nil)
    } throws: { error in
      guard case .unavailable(let reason) = error as? AppStoreServerAPIError else { return false }
      return reason.hasPrefix("transport")
    }
    #expect(always.connections == 2)
  }
}
