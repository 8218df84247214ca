import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateServer
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
  .timeLimit(.minutes(1)))
struct TwoInstancesTests {
  @Test("one profile per device, the AA flow for everyone, each token resolved once, config changes reach both")
  func behindNginx() async throws {
    let base = ProcessInfo.processInfo.environment["TOLLGATE_TEST_POSTGRES_URL"]!
    let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let setup = try PostgresStore(url: base, connections: 1, schema: schema)
    let keys = try KeyIssuer(store: setup).issue(appName: "shop")
    _ = try ConfigImporter(store: setup).apply(
      Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")), appId: keys.app.id)
    let database = base + "?options=-csearch_path%3D\(schema)"

    let sandbox = AppleAdsSandbox()
    let appleURL = try sandbox.start()
    defer { sandbox.stop() }
    let first = try ServeProcess(["--database", database, "--apple-ads-url", appleURL.absoluteString])
    defer { first.stop() }
    let second = try ServeProcess(["--database", database, "--apple-ads-url", appleURL.absoluteString])
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
          let flow = try await runtime.placements.flowAwaitingAttribution(
            placementId: "onboarding", locale: nil, provider: .appleAds, timeout: 5)
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

    // A config change through one instance is served by the other within its 1 s poll.
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
    setup.close()
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
