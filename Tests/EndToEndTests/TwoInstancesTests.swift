import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport
import TollgateTestSupport

@testable import Adapty

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Two `tollgate serve` processes on one PostgreSQL behind nginx, driven by SDK traffic.
@Suite(
  "Two server processes behind nginx",
  .enabled(
    if: ProcessInfo.processInfo.environment["TOLLGATE_TEST_POSTGRES_URL"] != nil
      && FileManager.default.fileExists(atPath: "/usr/sbin/nginx")
      && FileManager.default.fileExists(atPath: ServeProcess.executable.path)),
  .timeLimit(.minutes(5)))
struct TwoInstancesTests {
  @Test("one profile per device, the AA flow for everyone, each token resolved once, config changes reach both")
  func behindNginx() async throws {
    let base = ProcessInfo.processInfo.environment["TOLLGATE_TEST_POSTGRES_URL"]!
    let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let setup = try PostgresStore(url: base, connections: 1, schema: schema)
    let keys = try KeyIssuer(apps: setup).issue(appName: "shop")
    _ = try ConfigImporter(database: setup).apply(
      Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")), appId: keys.app.id)
    let database = base + "?options=-csearch_path%3D\(schema)"

    let sandbox = AppleAdsSandbox()
    let appleURL = try sandbox.start()
    defer { sandbox.stop() }
    // As docs/operations.md deploys them: nginx names the client in X-Forwarded-For, and the
    // instances trust it (default rate limits).
    let serve = ["--database", database, "--apple-ads-url", appleURL.absoluteString, "--trusted-proxies", "127.0.0.1"]
    let first = try ServeProcess(serve)
    defer { first.stop() }
    let second = try ServeProcess(serve)
    defer { second.stop() }
    let balancer = try Nginx(upstreams: [first.port, second.port])
    defer { balancer.stop() }

    // Eight first launches through the load balancer.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("two-\(UUID().uuidString)")
    let flows = try await withThrowingTaskGroup(of: (String, AdaptyFlow, String).self) { group in
      for device in 0..<8 {
        group.addTask {
          let token = "sbx|delay_ms=100|campaign=542370539|device=\(device)"
          let builder = AdaptyConfiguration.builder(withAPIKey: keys.publicKey)
            .with(backendBaseUrl: URL(string: "http://127.0.0.1:\(balancer.port)")!)
            .with(storageDirectory: directory.appendingPathComponent("\(device)"))
            .with(attributionTokenProvider: AdaptyStaticAttributionTokenProvider(token))
          let runtime = await AdaptyRuntime.launch(
            builder.build(), fallback: FallbackFlows(), delegates: DelegateHolder())
          // The wait is what is tested, not its length: Apple answers in 100 ms here, but with
          // every other test running beside it on two cores, the eight attributions through two
          // processes once took longer than 5 s (each device then got the default audience).
          let flow = try await runtime.placements.flowAwaitingAttribution(
            placementId: "onboarding", locale: nil, provider: .appleAds, timeout: 30)
          let profileId = await runtime.profiles.profileId
          await runtime.shutdown()
          return (token, flow, profileId)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(flows.count == 8)
    for (token, flow, profileId) in flows {
      #expect(flow.placement.audienceName == "Apple Ads: brand campaigns", "\(flow)")
      #expect(sandbox.tally(token).calls == 1, "\(token)")
      #expect(try setup.profile(appId: keys.app.id, id: profileId)?.appliedSources == ["apple_ads"])
    }
    #expect(try setup.attributionQueueDepth() == 0)

    // A config change through one instance reaches the other by NOTIFY (well within 2.5 s).
    var document = try WireCoding.decoder.decode(
      JSONValue.self, from: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
    guard case .object(var root) = document else { return }
    root["settings"] = .object(["allow_test_attribution": .bool(false)])
    document = .object(root)
    var put = URLRequest(url: URL(string: "http://127.0.0.1:\(first.port)/v1/admin/config")!)
    put.httpMethod = "PUT"
    put.setValue("Bearer \(keys.secretKey)", forHTTPHeaderField: "Authorization")
    put.setValue("application/json", forHTTPHeaderField: "Content-Type")
    put.httpBody = WireCoding.encode(document)
    let (_, putResponse) = try await URLSession.shared.data(for: put)
    #expect((putResponse as? HTTPURLResponse)?.statusCode == 200)
    let started = Date()
    var seen: Int64 = 0
    while Date().timeIntervalSince(started) < 3 {
      var get = URLRequest(url: URL(string: "http://127.0.0.1:\(second.port)/v1/sdk/placements/onboarding/default")!)
      get.setValue("Api-Key \(keys.publicKey)", forHTTPHeaderField: "Authorization")
      let (body, _) = try await URLSession.shared.data(for: get)
      seen = try WireCoding.decoder.decode(PlacementFlowResponse.self, from: body).placement.revision
      if seen == 2 { break }
      try await Task.sleep(nanoseconds: 100_000_000)
    }
    #expect(seen == 2)
    #expect(Date().timeIntervalSince(started) < 2.5)

    // 1 000 clients, each from its own address, 10 requests each: 5 000 per instance, more than
    // one address's burst (2 000) and refill. Nobody is limited, because each client has its own
    // bucket; without X-Forwarded-For (or the proxy trusted) they would all share nginx's.
    let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
      for worker in 0..<8 {
        group.addTask {
          var statuses: [Int] = []
          for client in stride(from: worker, to: 1_000, by: 8) {
            let address = "127.0.\(1 + client / 250).\(1 + client % 250)"
            for _ in 0..<10 {
              statuses.append(
                try LoopbackClient.status(
                  from: address, port: balancer.port, path: "/v1/sdk/placements/onboarding/default",
                  authorization: "Api-Key \(keys.publicKey)"))
            }
          }
          return statuses
        }
      }
      return try await group.reduce(into: []) { $0 += $1 }
    }
    #expect(statuses.count == 10_000)
    #expect(statuses.filter { $0 == 429 }.count == 0)
    #expect(Set(statuses) == [200])
    setup.close()
  }
}

/// One HTTP/1.1 GET over a socket bound to a chosen loopback address (Linux routes all of
/// 127.0.0.0/8 to lo), so a test can be many clients; only the status line is read.
enum LoopbackClient {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  static func status(from source: String, port: Int, path: String, authorization: String) throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
    defer { close(fd) }
    func address(_ host: String, _ port: Int) -> sockaddr_in {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = UInt16(port).bigEndian
      address.sin_addr.s_addr = inet_addr(host)
      return address
    }
    var local = address(source, 0)
    var remote = address("127.0.0.1", port)
    let bound = withUnsafePointer(to: &local) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw Failure(description: "bind \(source): \(errno)") }
    let connected = withUnsafePointer(to: &remote) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { throw Failure(description: "connect from \(source): \(errno)") }
    let request = Array(
      "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\nConnection: close\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
      throw Failure(description: "send: \(errno)")
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !received.contains(0x0A) {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      received += buffer[0..<count]
    }
    // "HTTP/1.1 200 OK": the second word.
    let line = String(decoding: received.prefix { $0 != 0x0D && $0 != 0x0A }, as: UTF8.self)
    let words = line.split(separator: " ")
    guard words.count >= 2, let status = Int(words[1]) else { throw Failure(description: "no status line: \(line)") }
    return status
  }
}

/// nginx (Debian's) as a load balancer in front of `upstreams`, with its files in a
/// temporary directory.
final class Nginx: Sendable {
  let process: ChildProcess
  let port: Int
  let directory: URL

  init(upstreams: [Int]) throws {
    directory = URL(fileURLWithPath: "/tmp/tollgate-nginx-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
    port = freeLoopbackPort()
    let servers = upstreams.map { "server 127.0.0.1:\($0);" }.joined(separator: " ")
    let path = directory.path
    let config = """
      worker_processes 1;
      daemon off;
      pid \(path)/nginx.pid;
      error_log \(path)/error.log;
      events { worker_connections 512; }
      http {
        access_log off;
        client_body_temp_path \(path)/body;
        proxy_temp_path \(path)/proxy;
        fastcgi_temp_path \(path)/fastcgi;
        uwsgi_temp_path \(path)/uwsgi;
        scgi_temp_path \(path)/scgi;
        upstream tollgate { \(servers) keepalive 16; }
        server {
          listen 127.0.0.1:\(port);
          location / {
            proxy_pass http://tollgate;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_read_timeout 60s;
          }
        }
      }
      """
    try Data(config.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
    process = try ChildProcess(
      "/usr/sbin/nginx", ["-c", directory.appendingPathComponent("nginx.conf").path, "-p", path], discardErrors: true)
    // Ready when it accepts connections (bounded).
    for _ in 0..<200 where !Self.accepts(port) { usleep(10_000) }
  }

  func stop() {
    process.stop()
    try? FileManager.default.removeItem(at: directory)
  }

  static func accepts(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    } == 0
  }

}
