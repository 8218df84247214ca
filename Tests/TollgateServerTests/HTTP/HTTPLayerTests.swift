import Dispatch
import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite("HTTP layer")
struct HTTPLayerTests {
  @Test("a body over 64 KiB sent at once is dropped unread and answered 413, the connection kept")
  func oversizedDeclaredBody() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let body = Data(repeating: UInt8(ascii: "a"), count: 64 * 1024 + 1)
    let result = try await server.send("POST", "/v1/sdk/profiles", key: server.sdkKey, body: body)
    #expect(result.status == 413)
    #expect(result.errorCode == "payload_too_large")

    // Answering before the body was in closed the connection with the body unread, and the
    // kernel reset it: a client still sending read "broken pipe", not the 413.
    let connection = try RawConnection(port: server.port)
    defer { connection.close() }
    connection.send(
      "POST /v1/sdk/profiles HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Api-Key \(server.sdkKey)\r\n"
        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        + String(decoding: body, as: UTF8.self))
    #expect(connection.readHead().hasPrefix("HTTP/1.1 413"))
    connection.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    #expect(connection.readHead().contains("HTTP/1.1 200"))
  }

  @Test(
    "a body over the limit is answered 413 before it is sent: past 1 MiB, or when the client waits for 100 Continue")
  func oversizedBodyAnsweredAtOnce() throws {
    let server = try TestServer()
    defer { server.stop() }
    for (length, expect) in [(64 * 1024 + 1, "Expect: 100-continue\r\n"), (1024 * 1024 + 1, "")] {
      let connection = try RawConnection(port: server.port)
      defer { connection.close() }
      connection.send(
        "POST /v1/sdk/profiles HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Api-Key \(server.sdkKey)\r\n"
          + "Content-Type: application/json\r\nContent-Length: \(length)\r\n\(expect)\r\n")
      #expect(connection.readHead().hasPrefix("HTTP/1.1 413"), "\(length) bytes \(expect)")
    }
  }

  @Test("a body exactly at the limit is read (and judged on its content)")
  func bodyAtLimit() async throws {
    let server = try TestServer()
    defer { server.stop() }
    var body = Data(#"{"profile_id":"7d3c9d2e-0d8f-4a8e-9a57-3f1f6f2b8c11","pad":""#.utf8)
    body.append(Data(repeating: UInt8(ascii: "x"), count: 64 * 1024 - body.count - 2))
    body.append(Data(#""}"#.utf8))
    #expect(body.count == 64 * 1024)
    let result = try await server.send("POST", "/v1/sdk/profiles", key: server.sdkKey, body: body)
    #expect(result.status == 201)
  }

  @Test("JSON bodies need Content-Type: application/json (415)")
  func wrongMediaType() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let body = Data(#"{"profile_id":"7d3c9d2e-0d8f-4a8e-9a57-3f1f6f2b8c11"}"#.utf8)
    let result = try await server.send(
      "POST", "/v1/sdk/profiles", key: server.sdkKey, body: body, contentType: "text/plain")
    #expect(result.status == 415)
    #expect(result.errorCode == "unsupported_media_type")
    let withCharset = try await server.send(
      "POST", "/v1/sdk/profiles", key: server.sdkKey, body: body, contentType: "application/json; charset=utf-8")
    #expect(withCharset.status == 201)
  }

  @Test("malformed JSON and invalid UTF-8 get 400 malformed_json")
  func malformedBodies() async throws {
    let server = try TestServer()
    defer { server.stop() }
    for body in [Data("{\"profile_id\":".utf8), Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]), Data("[]".utf8), Data()] {
      let result = try await server.send("POST", "/v1/sdk/profiles", key: server.sdkKey, body: body)
      #expect(result.status == 400, "body \(Array(body))")
      #expect(result.errorCode == "malformed_json")
    }
  }

  @Test("unknown routes are 404 and wrong methods 405 with Allow, both as JSON")
  func unknownRoutes() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let missing = try await server.sdk("GET", "/v1/nothing")
    #expect(missing.status == 404)
    #expect(missing.errorCode == "route_not_found")
    let wrongMethod = try await server.sdk("DELETE", "/v1/sdk/profiles")
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.errorCode == "method_not_allowed")
    #expect(wrongMethod.header("Allow") == "POST")
  }

  @Test("health reports the database")
  func health() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let result = try await server.send("GET", "/health")
    #expect(result.status == 200)
    #expect(result.json == .object(["status": .string("ok"), "database": .string("ok")]))
  }

  @Test("metrics count requests by route pattern and status, with a latency histogram")
  func metrics() async throws {
    let server = try TestServer()
    defer { server.stop() }
    _ = try await server.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)")
    _ = try await server.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)")
    _ = try await server.send("GET", "/v1/sdk/profiles/x")
    let result = try await server.send("GET", "/metrics")
    #expect(result.status == 200)
    #expect(result.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
    let text = String(decoding: result.body, as: UTF8.self)
    #expect(
      text.contains(#"tollgate_http_requests_total{route="/v1/sdk/profiles/{profileId}",method="GET",status="404"} 2"#))
    #expect(
      text.contains(#"tollgate_http_requests_total{route="/v1/sdk/profiles/{profileId}",method="GET",status="401"} 1"#))
    #expect(text.contains(#"tollgate_http_request_duration_seconds_count{route="/v1/sdk/profiles/{profileId}"} 3"#))
    #expect(
      text.contains(#"tollgate_http_request_duration_seconds_bucket{route="/v1/sdk/profiles/{profileId}",le="+Inf"} 3"#)
    )
  }

  @Test("metrics recorded on many threads at once add up exactly on scrape, buckets cumulative")
  func metricsAcrossThreads() throws {
    let metrics = Metrics()
    let threads = 8
    let perThread = 5_000
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for index in 0..<perThread {
        // Half within the first bound (0.5 ms), half at 30 ms; one route per parity of thread.
        metrics.record(
          route: "/r\(thread % 2)", method: "GET", status: index % 2 == 0 ? 200 : 404,
          seconds: index % 2 == 0 ? 0.0004 : 0.03)
      }
    }
    let text = metrics.render()
    let half = threads / 2 * perThread / 2
    for route in ["/r0", "/r1"] {
      #expect(text.contains(#"tollgate_http_requests_total{route="\#(route)",method="GET",status="200"} \#(half)"#))
      #expect(text.contains(#"tollgate_http_requests_total{route="\#(route)",method="GET",status="404"} \#(half)"#))
      #expect(text.contains(#"tollgate_http_request_duration_seconds_bucket{route="\#(route)",le="0.0005"} \#(half)"#))
      #expect(text.contains(#"tollgate_http_request_duration_seconds_bucket{route="\#(route)",le="0.025"} \#(half)"#))
      #expect(
        text.contains(#"tollgate_http_request_duration_seconds_bucket{route="\#(route)",le="0.05"} \#(2 * half)"#))
      #expect(text.contains(#"tollgate_http_request_duration_seconds_count{route="\#(route)"} \#(2 * half)"#))
      // 10 000 × 0.0004 s + 10 000 × 0.03 s, summed in nanoseconds.
      #expect(text.contains(#"tollgate_http_request_duration_seconds_sum{route="\#(route)"} 304.0"#))
    }
    #expect(metrics.requestsByClass == ["2xx": 2 * half, "4xx": 2 * half])
  }

  @Test("request fields: headers by any case, the last of a repeated name, empty and long values")
  func requestFields() {
    var headers = RequestFields(foldsCase: true)
    headers.append(name: Array("Content-Type".utf8), value: Array("application/json".utf8))
    headers.append(name: Array("X-Forwarded-For".utf8), value: Array("10.0.0.1".utf8))
    headers.append(name: Array("x-forwarded-for".utf8), value: Array("10.0.0.2".utf8))
    let long = String(repeating: "k", count: 300)
    headers.append(name: Array("Authorization".utf8), value: Array(long.utf8))
    headers.append(name: Array("Empty".utf8), value: [])
    #expect(headers["content-type"] == "application/json")
    #expect(headers["CONTENT-TYPE"] == "application/json")
    #expect(headers["x-forwarded-for"] == "10.0.0.2")
    #expect(headers["authorization"] == long)
    #expect(headers["empty"] == "")
    #expect(headers["missing"] == nil)
    #expect(headers["content-typ"] == nil)
    #expect(headers.dictionary.count == 4)
    let query = RequestFields(["profile_id": "ABC", "locale": "fr"])
    #expect(query["profile_id"] == "ABC")
    #expect(query["PROFILE_ID"] == nil, "query names are case-sensitive")
    #expect(query.dictionary == ["profile_id": "ABC", "locale": "fr"])
  }

  @Test("shutdown lets a request in flight finish, then stops listening")
  func gracefulShutdown() async throws {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    var settings = HTTPServer.Settings()
    settings.port = 0
    // Longer than a loaded machine could take to probe below: the request is released, not cut.
    settings.shutdownGraceSeconds = 120
    let http = HTTPServer(settings: settings) { request in
      if request.path == "/slow" {
        entered.signal()
        release.wait()
      }
      return .json(["path": request.path])
    }
    let port = try http.start()
    let url = URL(string: "http://127.0.0.1:\(port)/slow")!
    async let answer = TestServer.session.data(from: url)
    await Task.detached { entered.wait() }.value
    #expect(http.requestsInFlight == 1)
    // On a thread of its own: a busy cooperative pool must not delay the stop being tested.
    let stopped = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      http.shutdown()
      stopped.signal()
    }
    // While the request finishes, a new connection is refused at once, not left in a queue.
    var refused = false
    for _ in 0..<5_000 where !refused {
      if let probe = try? RawConnection(port: port) {
        probe.close()
        try await Task.sleep(for: .milliseconds(2))
      } else {
        refused = true
      }
    }
    #expect(refused)
    #expect(http.requestsInFlight == 1)
    release.signal()
    let (body, response) = try await answer
    await Task.detached { stopped.wait() }.value
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(String(decoding: body, as: UTF8.self) == #"{"path":"/slow"}"#)
    await #expect(throws: (any Error).self) {
      _ = try await TestServer.session.data(from: URL(string: "http://127.0.0.1:\(port)/after")!)
    }
  }

  @Test("servers started and stopped over and over, while others open sockets, stop cleanly every time")
  func repeatedShutdown() async throws {
    // libmicrohttpd's workers drop the listening socket from their epoll sets after a stop
    // begins; a socket closed (and its number reused) before that aborted the whole process.
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.threads = 4
    settings.shutdownGraceSeconds = 1
    for _ in 0..<60 {
      let servers = (0..<4).map { _ in HTTPServer(settings: settings) { _ in Response(status: 204) } }
      let ports = try servers.map { try $0.start() }
      for port in ports {
        let connection = try RawConnection(port: port)
        connection.send("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(connection.readUntilClosed().closedByServer)
        connection.close()
      }
      await withTaskGroup(of: Void.self) { group in
        for server in servers { group.addTask { server.shutdown() } }
        // Descriptors opened meanwhile take the numbers the stopping servers give back.
        group.addTask {
          for _ in 0..<20 { close(socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)) }
        }
      }
    }
  }

  @Test("a port in use is a clear start error")
  func portInUse() throws {
    var settings = HTTPServer.Settings()
    settings.port = 0
    let first = HTTPServer(settings: settings) { _ in Response(status: 204) }
    settings.port = try first.start()
    defer { first.shutdown() }
    let second = HTTPServer(settings: settings) { _ in Response(status: 204) }
    #expect(throws: HTTPServer.StartError.self) { try second.start() }
  }
}

/// A raw TCP client, for what URLSession hides: half-sent requests and refused connections.
/// A plain TCP connection. Closing twice is harmless: a second close(2) of a number the
/// process has since reused (a server's internal eventfd) would break that server.
final class RawConnection {
  private(set) var fd: Int32

  init(port: UInt16) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var timeout = timeval(tv_sec: 20, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
  }

  /// Sends `text`; a connection the server closed fails the send (no SIGPIPE).
  func send(_ text: String) { _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }

  /// Reads until the server closes the connection (or the 20 s safety timeout).
  func readUntilClosed() -> (bytes: Int, closedByServer: Bool) {
    var total = 0
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count == 0 { return (total, true) }
      // A reset is the server closing too (it drops connections it will not serve).
      if count < 0 { return (total, errno == ECONNRESET) }
      total += count
    }
  }

  /// Reads until the end of a response's head (or the connection closes).
  func readHead() -> String {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count <= 0 { break }
      received += buffer.prefix(count)
    }
    return String(decoding: received, as: UTF8.self)
  }

  func close() {
    guard fd >= 0 else { return }
    _ = Glibc.close(fd)
    fd = -1
  }

  deinit { close() }
}

@Suite("HTTP limits")
struct HTTPLimitTests {
  @Test("an idle, half-sent request is cut off after the connection timeout (slow-loris)")
  func connectionTimeout() throws {
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.connectionTimeoutSeconds = 1
    let http = HTTPServer(settings: settings) { _ in Response(status: 204) }
    let port = try http.start()
    defer { http.shutdown() }
    let connection = try RawConnection(port: port)
    defer { connection.close() }
    connection.send("GET /health HTTP/1.1\r\nHost: x\r\n")
    let outcome = connection.readUntilClosed()
    #expect(outcome.closedByServer)
    #expect(outcome.bytes == 0)
  }

  @Test("connections beyond the per-address limit are closed at once")
  func connectionLimit() throws {
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.perIPConnectionLimit = 2
    settings.threads = 1
    let http = HTTPServer(settings: settings) { _ in Response(status: 204) }
    let port = try http.start()
    defer { http.shutdown() }
    let held = try (0..<2).map { _ in try RawConnection(port: port) }
    defer { held.forEach { $0.close() } }
    // Let the server accept the first two before the third arrives.
    held[0].send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
    var buffer = [UInt8](repeating: 0, count: 1024)
    #expect(recv(held[0].fd, &buffer, buffer.count, 0) > 0)
    held[1].send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
    #expect(recv(held[1].fd, &buffer, buffer.count, 0) > 0)
    let extra = try RawConnection(port: port)
    defer { extra.close() }
    extra.send("GET /c HTTP/1.1\r\nHost: x\r\n\r\n")
    let outcome = extra.readUntilClosed()
    #expect(outcome.closedByServer)
    #expect(outcome.bytes == 0)
  }
}
