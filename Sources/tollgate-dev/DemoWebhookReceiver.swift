import Foundation
import Synchronization
import TollgateCommandLine
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// The app backend of `tollgate demo`: a local HTTP endpoint that checks each webhook's
/// signature the way a receiver should and keeps what arrived.
final class DemoWebhookReceiver: Sendable {
  private final class Log: Sendable {
    let events = Mutex<[(type: String, body: String, valid: Bool)]>([])
    let secret = Mutex<String>("")
  }

  private let log = Log()
  private let http: HTTPServer
  let url: URL

  init() throws {
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.threads = 2
    let log = log
    http = HTTPServer(settings: settings) { request in
      // Tollgate-Signature: t=…,v1=HMAC-SHA256(secret, t + "." + body)
      let fields = Dictionary(
        (request.headers["tollgate-signature"] ?? "").split(separator: ",").compactMap { pair -> (String, String)? in
          let parts = pair.split(separator: "=", maxSplits: 1)
          return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }, uniquingKeysWith: { first, _ in first })
      let key = log.secret.withLock { $0 }
      let expected = Digest.hmacSHA256Hex(key: key, message: Data("\(fields["t"] ?? "").".utf8) + request.body)
      let valid = fields["v1"] == expected
      log.events.withLock {
        $0.append((request.headers["tollgate-event-type"] ?? "", String(decoding: request.body, as: UTF8.self), valid))
      }
      return Response(status: valid ? 204 : 401)
    }
    url = URL(string: "http://127.0.0.1:\(try http.start())/tollgate")!
  }

  /// The signing secret, as `tollgate import` shows it once.
  func trust(_ secret: String) { log.secret.withLock { $0 = secret } }

  var events: [(type: String, body: String, valid: Bool)] { log.events.withLock { $0 } }

  func stop() { http.shutdown() }
}
