import Dispatch
import Foundation
import Synchronization
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A clock tests move by hand.
final class ManualTime: TimeSource {
  private let current: Mutex<Date>
  init(_ start: Date = Date(timeIntervalSince1970: 1_790_000_000)) { current = Mutex(start) }
  func now() -> Date { current.withLock { $0 } }
  func advance(days: Double) { current.withLock { $0 += days * 86_400 } }
}

/// Log lines a server wrote, for tests that check what was logged.
final class LogCollector: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

/// An HTTP answer as a client sees it.
struct HTTPResult {
  let status: Int
  let headers: [String: String]
  let body: Data

  func header(_ name: String) -> String? {
    headers.first { $0.key.lowercased() == name.lowercased() }?.value
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T { try WireCoding.decoder.decode(type, from: body) }

  /// The `error.code` of a JSON error body.
  var errorCode: String? { (try? decode(APIErrorBody.self))?.error.code }
  var errorMessage: String? { (try? decode(APIErrorBody.self))?.error.message }
  /// The paths of a 422's details.
  var errorPaths: [String] { (try? decode(APIErrorBody.self))?.error.details?.map(\.path) ?? [] }
  var json: JSONValue? { try? decode(JSONValue.self) }
}

/// A real Tollgate server with its own SQLite file and two apps ("alpha", "beta") with keys.
/// `.live` (the default) talks to it over real HTTP on an ephemeral loopback port;
/// `.inProcess` hands each request to the service directly — no socket — for tests of route
/// logic where the HTTP layer (body limits, connection handling, bytes on the wire) does not matter.
final class TestServer: Sendable {
  /// How requests reach the server.
  enum Mode: Sendable {
    /// Over HTTP on loopback, through libmicrohttpd.
    case live
    /// Straight into `Service.handle`, as the HTTP server would hand them over.
    case inProcess
  }

  let mode: Mode
  let directory: URL
  let databasePath: String
  let time: ManualTime
  let server: Server
  let port: UInt16
  let alpha: KeyIssuer.IssuedKeys
  let beta: KeyIssuer.IssuedKeys
  let log = LogCollector()

  /// The Apple Ads stand-in this server resolves tokens with.
  let sandbox: AppleAdsSandbox

  init(
    directory: URL = temporaryDirectory(), time: ManualTime = ManualTime(), maxBodyBytes: Int = 64 * 1024,
    sandbox: AppleAdsSandbox = AppleAdsSandbox(), attributionBudget: TimeInterval = 0.3,
    store givenStore: OpenedStore? = nil, appStoreVerifier: SignedDataVerifier = SignedDataVerifier(),
    webhookSender: any WebhookSending = URLSessionWebhookSender(), profileCache: Int = 0,
    rateLimits: RateLimits = RateLimits(), mode: Mode = .live, campaignAPI: URL? = nil,
    spendImportPolicy: SpendImportPolicy = SpendImportPolicy(), appStoreAPI: URL? = nil, publicURL: String? = nil,
    readReplica: ReadReplica? = nil
  ) throws {
    self.mode = mode
    self.sandbox = sandbox
    self.directory = directory
    self.time = time
    databasePath = directory.appendingPathComponent("tollgate.sqlite").path
    let store: OpenedStore
    if let givenStore {
      store = givenStore
    } else {
      let database = try SQLiteStore(path: databasePath)
      store = OpenedStore(database, cache: profileCache > 0 ? CachedStore(database, capacity: profileCache) : nil)
    }
    let issuer = KeyIssuer(apps: store.database, time: time)
    alpha = try issuer.issue(appName: "alpha")
    beta = try issuer.issue(appName: "beta")
    var configuration = ServerConfiguration()
    configuration.http.port = 0
    configuration.http.threads = 2
    configuration.http.maxBodyBytes = maxBodyBytes
    configuration.time = time
    let log = self.log
    configuration.logger = Logger(level: .info) { line in log.append(line) }
    configuration.apple = AppleAdsClient(url: try sandbox.start())
    // No periodic worker: tests run attribution passes themselves (`attributionPass()`).
    configuration.attributionInterval = nil
    configuration.attributionBudget = attributionBudget
    configuration.appStoreVerifier = appStoreVerifier
    configuration.secrets = try SecretBox(key: Array(repeating: 7, count: 32))
    configuration.webhookSender = webhookSender
    configuration.webhookInterval = nil
    configuration.rateLimits = rateLimits
    if let campaignAPI {
      configuration.campaignManagement = CampaignManagementClient(
        apiURL: campaignAPI.appendingPathComponent("api/v5/"), idURL: campaignAPI)
    }
    configuration.spendImportPolicy = spendImportPolicy
    configuration.spendImportInterval = nil
    if let appStoreAPI {
      configuration.appStoreServerAPI = AppStoreServerClient(
        productionURL: appStoreAPI.appendingPathComponent("production/"),
        sandboxURL: appStoreAPI.appendingPathComponent("sandbox/"))
    }
    configuration.recoveryInterval = nil
    // Argon2id at its least cost: the cost itself is checked in PasswordHasherTests.
    configuration.passwordHasher = .fastForTests
    configuration.publicURL = publicURL
    configuration.readReplica = readReplica
    configuration.peopleCleanupInterval = nil
    server = Server(store: store, configuration: configuration)
    port = try server.start()
  }

  func stop() {
    server.stop()
    sandbox.stop()
  }

  /// Lets passes the routes started finish, then runs the attribution worker until no job
  /// is due (at the test's clock).
  func attributionPass() async {
    let worker = server.service.attribution
    // Waited for on a Dispatch thread: blocking a Swift concurrency thread could starve the
    // very pass being waited for.
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      DispatchQueue.global().async {
        worker.waitUntilIdle()
        continuation.resume()
      }
    }
    while await worker.processDue() > 0 {}
  }

  var sdkKey: String { alpha.publicKey }
  var adminKey: String { alpha.secretKey }

  /// Sends a request; `json` is encoded as the body with `Content-Type: application/json`.
  func send(
    _ method: String, _ path: String, key: String? = nil, scheme: String = "Api-Key",
    headers: [String: String] = [:], body: Data? = nil, contentType: String? = "application/json"
  ) async throws -> HTTPResult {
    if mode == .inProcess {
      var all = headers
      if let key { all["Authorization"] = "\(scheme) \(key)" }
      if body != nil, let contentType { all["Content-Type"] = contentType }
      return await handle(method, path, headers: all, body: body ?? Data())
    }
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    request.httpMethod = method
    request.cachePolicy = .reloadIgnoringLocalCacheData
    if let key { request.setValue("\(scheme) \(key)", forHTTPHeaderField: "Authorization") }
    if let body {
      request.httpBody = body
      if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
    }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (data, response) = try await TestServer.session.data(for: request)
    let http = response as! HTTPURLResponse
    var headerMap: [String: String] = [:]
    for (name, value) in http.allHeaderFields { headerMap["\(name)"] = "\(value)" }
    return HTTPResult(status: http.statusCode, headers: headerMap, body: data)
  }

  /// The service's answer to a request built as libmicrohttpd would build it (query decoded,
  /// header names lower-cased, the loopback address); a long poll is awaited.
  private func handle(_ method: String, _ target: String, headers: [String: String], body: Data) async -> HTTPResult {
    let components = URLComponents(string: target)
    var query: [String: String] = [:]
    for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
    var request = Request(
      method: method, path: components?.percentEncodedPath.removingPercentEncoding ?? target, query: query,
      headers: headers, body: body)
    request.clientAddress = "127.0.0.1"
    var response = server.service.handle(request)
    if let deferred = response.deferred {
      response = await withCheckedContinuation { continuation in
        deferred.onComplete { continuation.resume(returning: $0) }
      }
    }
    var headerMap: [String: String] = [:]
    for (name, value) in response.headers { headerMap[name] = value }
    return HTTPResult(status: response.status, headers: headerMap, body: response.body)
  }

  /// SDK call with the alpha app's public key.
  func sdk(_ method: String, _ path: String, json: String? = nil, key: String? = nil) async throws -> HTTPResult {
    try await send(method, path, key: key ?? sdkKey, body: json.map { Data($0.utf8) })
  }

  /// Admin call with the alpha app's secret key.
  func admin(_ method: String, _ path: String, json: String? = nil, key: String? = nil) async throws -> HTTPResult {
    try await send(method, path, key: key ?? adminKey, scheme: "Bearer", body: json.map { Data($0.utf8) })
  }

  /// Creates a profile and returns its id.
  @discardableResult
  func createProfile(_ id: String = UUID().uuidString.lowercased(), install: String = "{}", key: String? = nil)
    async throws -> String
  {
    let result = try await sdk(
      "POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(id)","install":\#(install)}"#, key: key)
    precondition(result.status == 201 || result.status == 200, "profile creation failed: \(result.status)")
    return id
  }

  /// Applies the sample configuration to alpha.
  func applySampleConfig() async throws {
    let document = try String(
      contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"), encoding: .utf8)
    let result = try await admin("PUT", "/v1/admin/config", json: document)
    precondition(result.status == 200, "sample config rejected: \(String(decoding: result.body, as: UTF8.self))")
  }

  static let session: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    // Console tests send their session cookie by hand; nothing is remembered between requests.
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    return URLSession(configuration: configuration)
  }()
}
