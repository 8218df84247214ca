import Foundation

@testable import Adapty

/// Loses every transaction send, as a network cut (or a killed app) between the purchase
/// and the server's answer would; other requests pass.
struct TransactionDroppingTransport: HTTPTransport {
  let inner: URLSessionTransport

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    if request.path.hasSuffix("/transactions") { throw TransportError(description: "connection reset") }
    return try await inner.send(request)
  }
}
