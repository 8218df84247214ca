import TollgateSupport

/// Reads a request body chunk by chunk as libmicrohttpd hands it over, so a large upload is
/// turned into what the route needs without the whole body in memory. One sink per request,
/// called from one thread at a time.
public protocol BodySink: AnyObject {
  /// The next bytes of the body.
  func append(_ bytes: UnsafeBufferPointer<UInt8>)
  /// The body ended: what the route reads as `Request.upload`.
  func finish() -> any Sendable
}

/// A route whose body is streamed into a sink, with its own size limit.
public struct StreamedBodyRoute: Sendable {
  /// The method, e.g. `PUT`.
  public let method: String
  /// Paths starting with this.
  public let pathPrefix: String
  /// Bytes beyond which the answer is 413.
  public let limit: Int
  /// A new sink for a request (headers read, body not yet).
  public let makeSink: @Sendable (Request) -> any BodySink

  /// Creates a streamed route.
  public init(method: String, pathPrefix: String, limit: Int, makeSink: @escaping @Sendable (Request) -> any BodySink) {
    self.method = method
    self.pathPrefix = pathPrefix
    self.limit = limit
    self.makeSink = makeSink
  }

  func matches(_ request: Request) -> Bool { request.method == method && request.path.hasPrefix(pathPrefix) }
}
