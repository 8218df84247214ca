import Foundation

/// One HTTP request as the router sees it: parsed by libmicrohttpd, body fully read.
public struct Request: Sendable {
  /// Upper-case method, e.g. `GET`.
  public var method: String
  /// The decoded path without the query string.
  public var path: String
  /// Query arguments, decoded by libmicrohttpd; an argument without `=` maps to "".
  public var query: [String: String]
  /// Headers with lower-cased names.
  public var headers: [String: String]
  /// The request body (at most the server's body limit).
  public var body: Data
  /// Values of `{name}` segments of the matched route.
  public var pathParameters: [String: String] = [:]
  /// The peer's address as libmicrohttpd saw it ("" when unknown, e.g. tests calling the
  /// service directly).
  public var clientAddress: String = ""

  /// Creates a request (tests build them directly).
  public init(
    method: String, path: String, query: [String: String] = [:],
    headers: [String: String] = [:], body: Data = Data()
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
    self.body = body
  }

  /// A header by case-insensitive name.
  public func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// A path parameter the route declared; routes only ask for names they declare.
  public func parameter(_ name: String) -> String { pathParameters[name] ?? "" }
}
