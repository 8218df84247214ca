import CMicroHTTPD
import Foundation
import Synchronization
import TollgateSupport

/// An HTTP server on libmicrohttpd: an internal epoll thread pool calls `handler` for each
/// complete request. libmicrohttpd parses HTTP; this type only moves bytes in and out.
public final class HTTPServer: Sendable {
  /// Limits and threading.
  public struct Settings: Sendable {
    /// IPv4 address to bind.
    public var bindAddress: String = "127.0.0.1"
    /// Port; 0 picks a free one (see `start()`'s result).
    public var port: UInt16 = 8080
    /// Worker threads.
    public var threads: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// Simultaneous connections, all clients together: a request arriving on a connection
    /// beyond it is answered 503 `server_busy` at once (with `Retry-After` and
    /// `Connection: close`); libmicrohttpd itself accepts up to twice as many, after which
    /// new connections wait in the kernel's queue.
    public var connectionLimit: Int = 1024
    /// Simultaneous connections from one IP address (0 = no limit).
    public var perIPConnectionLimit: Int = 0
    /// Idle seconds before a connection is closed: bounds slow-loris clients.
    public var connectionTimeoutSeconds: Int = 15
    /// Request bodies above this many bytes get 413.
    public var maxBodyBytes: Int = 64 * 1024
    /// A body declared over its limit but at most this large is read and dropped before the
    /// 413, so a client that sends it without waiting for `100 Continue` reads the answer
    /// instead of a reset connection; larger ones are answered at once.
    public var drainedBodyBytes: Int = 1024 * 1024
    /// Routes (exact paths) whose bodies may be larger: image uploads.
    public var largeBodyLimits: [String: Int] = [:]
    /// Routes whose bodies are handed to a `BodySink` chunk by chunk as they arrive instead
    /// of being collected (saved lists of up to a million values).
    public var streamedBodies: [StreamedBodyRoute] = []
    /// How long shutdown waits for requests in flight.
    public var shutdownGraceSeconds: Double = 10

    /// Defaults: loopback, port 8080.
    public init() {}
  }

  /// Why the server could not start.
  public struct StartError: Error, CustomStringConvertible {
    /// Explanation.
    public let description: String
  }

  let settings: Settings
  let responder: any HTTPResponder
  /// Open connections, counted by libmicrohttpd's notifications.
  private let counter = OpenConnections()
  private let daemon = Mutex<Daemon?>(nil)
  /// Counted on every request by both worker threads: an atomic, not a lock they contend for.
  private let inFlight = Atomic<Int>(0)

  /// Creates a server; `responder` answers every request.
  public init(settings: Settings, responder: any HTTPResponder) {
    self.settings = settings
    self.responder = responder
  }

  /// Creates a server; `handler` must not throw and must answer every request.
  public convenience init(settings: Settings, handler: @escaping @Sendable (Request) -> Response) {
    self.init(settings: settings, responder: ClosureResponder(handler: handler))
  }

  /// Starts listening and returns the bound port.
  @discardableResult
  public func start() throws -> UInt16 {
    let context = Unmanaged.passUnretained(self).toOpaque()
    let started: OpaquePointer? = settings.bindAddress.withCString { address in
      var native = tg_mhd_settings(
        bind_address: address, port: settings.port,
        thread_pool_size: UInt32(settings.threads),
        connection_limit: UInt32(min(Int(UInt32.max), settings.connectionLimit * 2)),
        per_ip_connection_limit: UInt32(settings.perIPConnectionLimit),
        connection_timeout_seconds: UInt32(settings.connectionTimeoutSeconds),
        connection_memory_limit: 32 * 1024, counter: counter.pointer)
      return tg_server_start(
        &native, MHDCallbacks.access, context, MHDCallbacks.completed, context)
    }
    guard let started else {
      throw StartError(
        description: "cannot listen on \(settings.bindAddress):\(settings.port) "
          + "(address in use or invalid)")
    }
    daemon.withLock { $0 = Daemon(pointer: started) }
    return tg_server_port(started)
  }

  /// Stops accepting connections (new ones are refused at once), lets requests in flight
  /// finish (up to the grace period), then stops the worker threads. Safe to call twice.
  public func shutdown() {
    guard
      let running = daemon.withLock({ value -> OpaquePointer? in
        defer { value = nil }
        return value?.pointer
      })
    else { return }
    tg_server_stop_accepting(running)
    let deadline = Date().addingTimeInterval(settings.shutdownGraceSeconds)
    while inFlight.load(ordering: .acquiring) > 0 && Date() < deadline {
      usleep(5_000)
    }
    tg_server_stop(running)
  }

  /// Connections open now.
  public var openConnections: Int { tg_mhd_counter_open(counter.pointer) }

  /// Requests received whose response has not been sent yet.
  public var requestsInFlight: Int { inFlight.load(ordering: .acquiring) }

  func requestBegan() { inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing) }
  func requestEnded() { inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing) }

  deinit { shutdown() }
}

/// The C connection counter; updated atomically by libmicrohttpd's threads.
private final class OpenConnections: @unchecked Sendable {
  let pointer = tg_mhd_counter_new()
  deinit { tg_mhd_counter_free(pointer) }
}

/// The C server handle (daemon and accepting thread); its functions are thread-safe.
private struct Daemon: @unchecked Sendable {
  let pointer: OpaquePointer
}

/// A suspended connection; libmicrohttpd allows resuming it from any thread.
private struct SuspendedConnection: @unchecked Sendable {
  let pointer: OpaquePointer
}

/// What one request accumulates between libmicrohttpd's calls.
final class PendingRequest {
  var request: Request
  var bodyTooLarge = false
  /// This route's body limit.
  var bodyLimit = 0
  var answered = false
  /// Reads the body as it arrives, on a streamed route.
  var sink: (any BodySink)?
  var streamedBytes = 0
  /// Set while the connection is suspended waiting for a deferred answer.
  var deferred: DeferredResponse?

  init(request: Request) { self.request = request }
}

/// libmicrohttpd's C callbacks. They are static members of a type in this file (not
/// closures in `main.swift`) so they carry no actor isolation when called on MHD threads.
enum MHDCallbacks {
  static let access: MHD_AccessHandlerCallback = {
    cls, connection, url, method, _, uploadData, uploadSize, connectionContext in
    guard let cls, let connection, let connectionContext, let uploadSize else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()

    guard let existing = connectionContext.pointee else {
      var request = Request(
        method: method.map { String(cString: $0) } ?? "GET",
        path: url.map { String(cString: $0) } ?? "/",
        query: values(of: connection, kind: .GET_ARGUMENT_KIND, foldsCase: false),
        headers: values(of: connection, kind: .HEADER_KIND, foldsCase: true))
      request.clientAddress = clientAddress(of: connection)
      let method = request.method
      let declaredLength = request.header("content-length")
      // Its last use: moved into the pending request, not copied (a copy is a retain and a
      // release of every field).
      let pending = PendingRequest(request: request)
      connectionContext.pointee = Unmanaged.passRetained(pending).toOpaque()
      server.requestBegan()
      // Beyond the connection limit: a quick 503 beats a connection left waiting.
      if server.openConnections > server.settings.connectionLimit {
        pending.answered = true
        return send(serverBusy(), on: connection)
      }
      // Reject a declared oversized body before reading it.
      pending.bodyLimit = server.settings.maxBodyBytes
      // Uploads and streamed bodies are never reads: most requests skip the lookups.
      if method != "GET" && method != "HEAD" {
        pending.bodyLimit = server.settings.largeBodyLimits[pending.request.path] ?? pending.bodyLimit
        if let route = server.settings.streamedBodies.first(where: { $0.matches(pending.request) }) {
          pending.bodyLimit = route.limit
          pending.sink = route.makeSink(pending.request)
        }
      }
      if let length = declaredLength.flatMap(Int.init), length > pending.bodyLimit {
        // A client still sending a small body would see its connection reset by an early
        // answer (the kernel resets a socket closed with unread bytes), not the 413: such a
        // body is read and dropped first. A client waiting for 100 Continue, or one declaring
        // more than `drainedBodyBytes`, is answered at once, before it sends anything.
        let waitsForContinue = pending.request.header("expect")?.lowercased() == "100-continue"
        guard waitsForContinue || length > server.settings.drainedBodyBytes else {
          pending.bodyTooLarge = true
          return .YES
        }
        pending.answered = true
        return send(payloadTooLarge(pending.bodyLimit), on: connection)
      }
      return .YES
    }

    let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
      let size = uploadSize.pointee
      if let sink = pending.sink {
        pending.streamedBytes += size
        if pending.streamedBytes > pending.bodyLimit {
          pending.bodyTooLarge = true
        } else if !pending.bodyTooLarge, let uploadData {
          uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
            sink.append(UnsafeBufferPointer(start: $0, count: size))
          }
        }
      } else if pending.bodyTooLarge || pending.request.body.count + size > pending.bodyLimit {
        pending.bodyTooLarge = true
      } else if let uploadData {
        uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
          pending.request.body.append($0, count: size)
        }
      }
      uploadSize.pointee = 0
      return .YES
    }
    if let deferred = pending.deferred {
      // Called again after MHD_resume_connection: the answer is ready.
      guard let response = deferred.response else { return .YES }
      pending.deferred = nil
      return send(response, on: connection)
    }
    if pending.answered { return .YES }
    pending.answered = true
    if pending.bodyTooLarge { return send(payloadTooLarge(pending.bodyLimit), on: connection) }
    if let sink = pending.sink {
      pending.request.upload = sink.finish()
      pending.sink = nil
    }
    // Taken out of the pending request rather than copied from it (nothing reads it later).
    var request = Request(method: "", path: "", query: RequestFields(), headers: RequestFields())
    swap(&request, &pending.request)
    let response = server.responder.respond(to: request)
    guard let deferred = response.deferred else { return send(response, on: connection) }
    pending.deferred = deferred
    MHD_suspend_connection(connection)
    let suspended = SuspendedConnection(pointer: connection)
    if deferred.attach(resume: { MHD_resume_connection(suspended.pointer) }) {
      MHD_resume_connection(connection)
    }
    return .YES
  }

  static let completed: MHD_RequestCompletedCallback = { cls, _, connectionContext, _ in
    guard let cls, let connectionContext, let pointer = connectionContext.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pointer).release()
    connectionContext.pointee = nil
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().requestEnded()
  }

  private static func serverBusy() -> Response {
    var response = DomainError(
      .serverBusy, "The server has too many open connections; retry shortly.", retryAfter: 1
    ).response
    response.headers.append(("Connection", "close"))
    return response
  }

  private static func payloadTooLarge(_ limit: Int) -> Response {
    DomainError(.payloadTooLarge, "Request bodies here are limited to \(limit) bytes.").response
  }

  private static func send(_ response: Response, on connection: OpaquePointer) -> MHD_Result {
    let native: OpaquePointer? = response.body.withUnsafeBytes { bytes in
      MHD_create_response_from_buffer(
        bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
        .RESPMEM_MUST_COPY)
    }
    guard let native else { return .NO }
    defer { MHD_destroy_response(native) }
    for (name, value) in response.headers {
      // `withCString`, not the implicit conversion: that one makes a heap copy of a short
      // string (a header name) to get its terminating zero.
      name.withCString { name in value.withCString { value in _ = MHD_add_response_header(native, name, value) } }
    }
    return MHD_queue_response(connection, UInt32(response.status), native)
  }

  private static func clientAddress(of connection: OpaquePointer) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
      guard let base = buffer.baseAddress, tg_mhd_client_address(connection, base, 64) == 0 else { return "" }
      return String(cString: base)
    }
  }

  private final class Collected {
    var fields: RequestFields
    init(foldsCase: Bool) { fields = RequestFields(foldsCase: foldsCase) }
  }

  private static let collect: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collected = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
    let name = UnsafeRawBufferPointer(start: key, count: strlen(key))
    let text =
      value.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
    collected.fields.append(name: name, value: text)
    return .YES
  }

  private static func values(of connection: OpaquePointer, kind: MHD_ValueKind, foldsCase: Bool) -> RequestFields {
    let collected = Collected(foldsCase: foldsCase)
    withExtendedLifetime(collected) {
      _ = MHD_get_connection_values(
        connection, kind, collect, Unmanaged.passUnretained(collected).toOpaque())
    }
    return collected.fields
  }
}

/// What answers a server's requests: the application's responder, called on libmicrohttpd's
/// threads; it must not throw and must answer every request.
public protocol HTTPResponder: Sendable {
  /// The response to `request` (possibly deferred).
  func respond(to request: Request) -> Response
}

/// A closure as a responder (tests and small stand-in servers).
private struct ClosureResponder: HTTPResponder {
  let handler: @Sendable (Request) -> Response
  func respond(to request: Request) -> Response { handler(request) }
}
