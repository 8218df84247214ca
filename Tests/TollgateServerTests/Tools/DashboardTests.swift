import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// The console's files and the overview figures it shows; safe by construction.
@Suite("Dashboard")
struct DashboardTests {
  @Test("the console is served with a strict CSP, nosniff and no inline script or style")
  func files() async throws {
    let server = try TestServer()
    defer { server.stop() }
    let page = try await server.send("GET", "/dashboard")
    #expect(page.status == 200)
    #expect(page.header("Content-Type") == "text/html; charset=utf-8")
    let policy = try #require(page.header("Content-Security-Policy"))
    #expect(policy.contains("script-src 'self'"))
    #expect(policy.contains("default-src 'none'"))
    #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
    #expect(page.header("X-Content-Type-Options") == "nosniff")
    #expect(page.header("Cache-Control") == "no-store")
    let html = String(decoding: page.body, as: UTF8.self)
    #expect(html.range(of: #"<script(?![^>]*\bsrc=)"#, options: .regularExpression) == nil, "no inline script")
    #expect(!html.contains("style=") && !html.contains("<style"), "no inline style")
    for (path, type) in [
      ("/dashboard/app.js", "text/javascript; charset=utf-8"), ("/dashboard/app.css", "text/css; charset=utf-8"),
    ] {
      let file = try await server.send("GET", path)
      #expect(file.status == 200, "\(path)")
      #expect(file.header("Content-Type") == type)
      #expect(file.header("X-Content-Type-Options") == "nosniff")
    }
    #expect(try await server.send("GET", "/dashboard/secret.txt").status == 404)
    #expect(try await server.send("POST", "/dashboard", body: Data("{}".utf8)).status == 405)
  }

  @Test("the console's files and the password list are compiled in as they are on disk, byte for byte")
  func filesAsOnDisk() async throws {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../../Sources/TollgateServer")
    func disk(_ path: String) throws -> Data { try Data(contentsOf: sources.appendingPathComponent(path)) }
    let server = try TestServer()
    defer { server.stop() }
    #expect(try await server.send("GET", "/dashboard").body == disk("Dashboard/Resources/index.html"))
    #expect(try await server.send("GET", "/dashboard/app.css").body == disk("Dashboard/Resources/app.css"))
    let script = try ["core", "paywall", "reports", "admin", "builder", "people"].map {
      try disk("Dashboard/Resources/\($0).js")
    }.reduce(Data(), +)
    #expect(try await server.send("GET", "/dashboard/app.js").body == script)
    for name in ["classic", "cards", "minimal"] {
      let served = try await server.send("GET", "/dashboard/template-\(name).json").body
      #expect(served == (try disk("Dashboard/Resources/template-\(name).json")), "\(name)")
    }
    let passwords = try disk("Features/People/Resources/common-passwords.txt")
    #expect(Data(EmbeddedFiles.common_passwords_txt) == passwords)
    #expect(CommonPasswords.policy.common.count == 19_290)
  }

  @Test("each file carries a content-hash ETag; a matching If-None-Match is 304 without the bytes")
  func etags() async throws {
    let server = try TestServer()
    defer { server.stop() }
    var seen: Set<String> = []
    for path in ["/dashboard", "/dashboard/app.js", "/dashboard/app.css"] {
      let first = try await server.send("GET", path)
      let etag = try #require(first.header("ETag"), "\(path)")
      #expect(etag == "\"" + Digest.hex(Digest.sha256(first.body)).prefix(32) + "\"")
      seen.insert(etag)
      let again = try await server.send("GET", path, headers: ["If-None-Match": etag])
      #expect(again.status == 304, "\(path)")
      #expect(again.body.isEmpty)
      #expect(again.header("ETag") == etag)
      #expect(again.header("Cache-Control") == first.header("Cache-Control"))
      let stale = try await server.send("GET", path, headers: ["If-None-Match": "\"0\""])
      #expect(stale.status == 200 && stale.body == first.body)
    }
    #expect(seen.count == 3)
    #expect(try await server.send("GET", "/dashboard/app.js").header("Cache-Control") == "no-cache")
  }

  @Test("values reach the page only as text: the script never parses server data as HTML")
  func textOnly() {
    let scriptText = String(decoding: Dashboard.script, as: UTF8.self)
    for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
      #expect(!scriptText.contains(sink), "\(sink)")
    }
    #expect(scriptText.contains("sessionStorage"))
    #expect(!scriptText.contains("localStorage") && !scriptText.contains("document.cookie"))
  }

  @Test("Chart.js comes from the Debian package when it is installed, else a clear 404")
  func chart() throws {
    let file = temporaryDirectory().appendingPathComponent("chart.min.js")
    try Data("/* chart */".utf8).write(to: file)
    let request = Request(method: "GET", path: "/dashboard/chart.min.js")
    let installed = Dashboard(chartPath: file.path).respond(to: request)
    #expect(installed.status == 200)
    #expect(installed.body == Data("/* chart */".utf8))
    let missing = Dashboard(chartPath: "/nonexistent/chart.min.js").respond(to: request)
    #expect(missing.status == 404)
    #expect(String(decoding: missing.body, as: UTF8.self).contains("libjs-chart.js"))
  }

  @Test("--no-dashboard: nothing is served at /dashboard")
  func off() {
    var configuration = ServerConfiguration()
    configuration.dashboard = false
    let service = Service(
      store: OpenedStore(try! SQLiteStore(path: temporaryDirectory().appendingPathComponent("d.sqlite").path)),
      configuration: configuration)
    #expect(service.handle(Request(method: "GET", path: "/dashboard")).status == 404)
  }

  @Test("the overview answers the app, its revision and placements, and the server's own counters")
  func overview() async throws {
    let server = try TestServer()
    defer { server.stop() }
    #expect(try await server.admin("GET", "/v1/admin/overview").json?.objectValue?["revision"] == .int(0))
    try await server.applySampleConfig()
    _ = try await server.createProfile()
    _ = try await server.sdk("GET", "/v1/sdk/profiles/\(UUID().uuidString)")
    let overview = try #require(try await server.admin("GET", "/v1/admin/overview").json?.objectValue)
    #expect(overview["name"] == .string("alpha"))
    #expect(overview["revision"] == .int(1))
    #expect(overview["placements"] == .array([.string("onboarding"), .string("settings_upgrade")]))
    let requests = try #require(overview["requests"]?.objectValue)
    // Counted before this request: overview, PUT config, create, the 404 and the first overview.
    #expect(requests["total"] == .int(4))
    #expect(requests["client_errors"] == .int(1))
    #expect(requests["server_errors"] == .int(0))
    #expect(try await server.sdk("GET", "/v1/admin/overview").status == 403)
  }
}
