import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The HTTP side of a stand-in: a small libmicrohttpd server on loopback (or `host`) handing
/// every request to the stand-in, started and stopped with it.
final class StandInListener: Sendable {
  private let http: Mutex<HTTPServer?> = Mutex(nil)

  /// Listens on `host:port` (0 picks a port); returns the bound port.
  func start(host: String, port: UInt16, _ answer: @escaping @Sendable (Request) -> Response) throws -> UInt16 {
    var settings = HTTPServer.Settings()
    settings.bindAddress = host
    settings.port = port
    settings.threads = 2
    // A test on a loaded machine may pause longer than the usual 15 s between two calls; an
    // idle connection closed while its client reuses it reads as an empty reply.
    settings.connectionTimeoutSeconds = 300
    let server = HTTPServer(settings: settings, handler: answer)
    let bound = try server.start()
    http.withLock { $0 = server }
    return bound
  }

  /// Stops listening.
  func stop() {
    let server = http.withLock { server -> HTTPServer? in
      defer { server = nil }
      return server
    }
    server?.shutdown()
  }
}
