import Foundation
import TollgateSupport

/// One HTTP request as the router sees it: parsed by libmicrohttpd, body fully read.
public struct Request: Sendable {
  /// Upper-case method, e.g. `GET`.
  public var method: String
  /// The decoded path without the query string.
  public var path: String
  /// Query arguments, decoded by libmicrohttpd; an argument without `=` reads as "".
  public var query: RequestFields
  /// Headers, looked up without regard to case.
  public var headers: RequestFields
  /// The request body (at most the server's body limit); empty on a streamed route, whose
  /// sink's reading is in `upload`.
  public var body: Data
  /// What a streamed route's `BodySink` made of the body (nil elsewhere, and when a test
  /// hands the request to the service directly: the route then reads `body`).
  public var upload: (any Sendable)?
  /// Values of `{name}` segments of the matched route.
  public var pathParameters = RequestFields()
  /// The peer's address as libmicrohttpd saw it ("" when unknown, e.g. tests calling the
  /// service directly).
  public var clientAddress: String = ""

  /// Creates a request (tests build them directly).
  public init(
    method: String, path: String, query: [String: String] = [:],
    headers: [String: String] = [:], body: Data = Data()
  ) {
    self.init(
      method: method, path: path, query: RequestFields(query),
      headers: RequestFields(headers, foldsCase: true), body: body)
  }

  /// Creates a request from fields read off the connection.
  init(method: String, path: String, query: RequestFields, headers: RequestFields, body: Data = Data()) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
  }

  /// A header by case-insensitive name.
  public func header(_ name: String) -> String? { headers[name] }

  /// A path parameter the route declared; routes only ask for names they declare.
  public func parameter(_ name: String) -> String { pathParameters[name] ?? "" }
}
