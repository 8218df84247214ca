import Foundation

/// One request to the Tollgate server, relative to the backend base URL.
struct HTTPRequest: Sendable, Hashable {
  var method: String
  var path: String
  var query: [String: String] = [:]
  var headers: [String: String] = [:]
  var body: Data?
}

/// The server's answer.
struct HTTPResponse: Sendable, Hashable {
  var status: Int
  var headers: [String: String] = [:]
  var body: Data = Data()

  func header(_ name: String) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
  }
}

/// A failure below HTTP: no connection, DNS, TLS, reset.
struct TransportError: Error, Sendable {
  let description: String
}

/// Moves requests to the server. `URLSessionTransport` in apps; tests script a fake.
protocol HTTPTransport: Sendable {
  /// Sends a request; throws `TransportError` when no HTTP answer came back, and
  /// `CancellationError` when the task was cancelled.
  func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
