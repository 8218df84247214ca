import Foundation
import TollgateAPI
import TollgateSupport

/// An HTTP response: status, headers, body bytes.
public struct Response: Sendable {
  /// Status code.
  public var status: Int
  /// Header name/value pairs, in order.
  public var headers: [(String, String)]
  /// Body bytes.
  public var body: Data
  /// Set when the answer comes later (long polls); status, headers and body are then unused.
  public var deferred: DeferredResponse?
  /// The route pattern that answered (the metrics label); nil when no route matched.
  public var route: String?

  /// Creates a response.
  public init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// An answer that will be completed later; the connection is suspended meanwhile.
  public static func deferred(_ deferred: DeferredResponse) -> Response {
    var response = Response(status: 0)
    response.deferred = deferred
    return response
  }

  /// A JSON response with a wire model as its body.
  public static func json<T: Encodable>(_ value: T, status: Int = 200) -> Response {
    json(bytes: WireCoding.encode(value), status: status)
  }

  /// A JSON response with ready-made bytes.
  public static func json(bytes: Data, status: Int = 200) -> Response {
    // Room for the headers most answers add (an ETag, a cache lifetime): no reallocation.
    var headers: [(String, String)] = []
    headers.reserveCapacity(4)
    headers.append(("Content-Type", "application/json; charset=utf-8"))
    return Response(status: status, headers: headers, body: bytes)
  }

  /// 304 with only the ETag and `headers` when the client's `If-None-Match` names `etag`,
  /// else `full()` with them: cached copies are revalidated without sending the bytes again.
  package static func conditional(
    _ request: Request, etag: String, headers: [(String, String)] = [], _ full: () -> Response
  ) -> Response {
    let tags = request.header("if-none-match")?.split(separator: ",").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    if let tags, tags.contains(etag) || tags.contains("*") {
      return Response(status: 304, headers: [("ETag", etag)] + headers)
    }
    var response = full()
    response.headers.reserveCapacity(response.headers.count + 1 + headers.count)
    response.headers.append(("ETag", etag))
    response.headers.append(contentsOf: headers)
    return response
  }

  /// The value of a header by case-insensitive name.
  public func header(_ name: String) -> String? {
    headers.first { $0.0.lowercased() == name.lowercased() }?.1
  }
}
