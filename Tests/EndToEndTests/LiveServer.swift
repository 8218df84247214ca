import Foundation
import TollgateAPI
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport
import TollgateTestSupport

@testable import Adapty
@testable import AdaptyUI

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A real Tollgate server on a loopback port with the sample configuration and the Apple
/// Ads stand-in, plus a fresh SDK storage directory: what an app and its backend look like
/// in these tests. Attribution retries are fast here (0.1 s instead of Apple's 5 s) so the
/// scenarios run in real time quickly.
final class LiveServer: Sendable {
  let directory: URL
  let store: SQLiteStore
  let server: Server
  let port: UInt16
  let keys: KeyIssuer.IssuedKeys
  let sandbox: AppleAdsSandbox
  /// Signs StoreKit transactions and notifications; this server trusts its root.
  let signer: StoreKitSigner

  static let fastPolicy: AttributionPolicy = {
    var policy = AttributionPolicy()
    policy.notReadyDelay = 0.1
    policy.backoff = [0.3]
    return policy
  }()

  init(config: String? = nil) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("tollgate-e2e-\(UUID().uuidString)")
    store = try SQLiteStore(path: directory.appendingPathComponent("server/tollgate.sqlite").path)
    keys = try KeyIssuer(apps: store).issue(appName: "e2e")
    let document =
      try config.map { Data($0.utf8) }
      ?? Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    _ = try ConfigImporter(database: store).apply(document, appId: keys.app.id)
    sandbox = AppleAdsSandbox()
    signer = try StoreKitSigner(appleNames: false)
    (server, port) = try Self.serve(store: store, sandbox: sandbox, signer: signer, port: 0)
  }

  /// The same database, keys and stand-in, in a new server process on the same port.
  private init(restarting previous: LiveServer) throws {
    directory = previous.directory
    keys = previous.keys
    sandbox = previous.sandbox
    signer = previous.signer
    store = try SQLiteStore(path: directory.appendingPathComponent("server/tollgate.sqlite").path)
    (server, port) = try Self.serve(store: store, sandbox: sandbox, signer: signer, port: previous.port)
  }

  /// Stops this server (as a crash or deploy would) and starts another on its database.
  func restart() throws -> LiveServer {
    server.stop()
    return try LiveServer(restarting: self)
  }

  private static func serve(store: SQLiteStore, sandbox: AppleAdsSandbox, signer: StoreKitSigner, port: UInt16)
    throws -> (Server, UInt16)
  {
    var configuration = ServerConfiguration()
    configuration.http.port = port
    configuration.http.threads = 2
    configuration.logger = Logger(level: .warn)
    configuration.apple = AppleAdsClient(url: try sandbox.start())
    configuration.attributionPolicy = fastPolicy
    configuration.attributionInterval = 0.05
    configuration.appStoreVerifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    configuration.webhookInterval = nil
    let server = Server(store: OpenedStore(store), configuration: configuration)
    return (server, try server.start())
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// The SDK's files for one install of the app.
  var sdkDirectory: URL { directory.appendingPathComponent("sdk") }

  /// The app's configuration; the install reports app version 2.4.0, and its Apple Ads
  /// token is `token` (nil: the device has none).
  func builder(
    storage: URL? = nil, token: String? = nil, store: (any AdaptyPurchaseSource)? = nil,
    customerUserId: String? = nil
  ) -> AdaptyConfiguration.Builder {
    let builder = AdaptyConfiguration.builder(withAPIKey: keys.publicKey)
      .with(backendBaseUrl: baseURL)
      .with(storageDirectory: storage ?? sdkDirectory)
      .with(logLevel: .warn)
      .with(customerUserId: customerUserId)
      .with(attributionTokenProvider: AdaptyStaticAttributionTokenProvider(token))
    if let store { builder.with(purchaseSource: store) }
    builder.dependencies.installInfo = {
      InstallInfo(appVersion: "2.4.0", osVersion: "17.5", deviceModel: "iPhone15,2", locale: "fr-FR")
    }
    return builder
  }

  /// The built configuration of `builder(…)`.
  func configuration(
    storage: URL? = nil, token: String? = nil, store: (any AdaptyPurchaseSource)? = nil,
    customerUserId: String? = nil
  ) -> AdaptyConfiguration {
    builder(storage: storage, token: token, store: store, customerUserId: customerUserId).build()
  }

  /// The server's `/metrics` text.
  func metrics() async throws -> String {
    let (data, _) = try await URLSession.shared.data(from: baseURL.appendingPathComponent("metrics"))
    return String(decoding: data, as: UTF8.self)
  }

  /// SDK requests the server answered so far, by `METHOD route pattern` (from `/metrics`).
  func sdkRequests() async throws -> [String: Int] {
    var counts: [String: Int] = [:]
    for line in try await metrics().split(separator: "\n")
    where line.hasPrefix("tollgate_http_requests_total{route=\"/v1/sdk") {
      let labels = line.split(separator: "\"")
      counts["\(labels[3]) \(labels[1])", default: 0] += Int(line.split(separator: " ").last ?? "") ?? 0
    }
    return counts
  }

  func stop() {
    server.stop()
    sandbox.stop()
  }

  /// Posts an App Store Server Notification as Apple would, signed by this server's test chain.
  func notify(_ payload: [String: Any]) async throws -> Int {
    let jws = try signer.sign(json: payload)
    var request = URLRequest(url: baseURL.appendingPathComponent("v1/app-store/notifications/e2e"))
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = WireCoding.encode(AppStoreNotificationRequest(signedPayload: jws))
    let (_, response) = try await URLSession.shared.data(for: request)
    return (response as! HTTPURLResponse).statusCode
  }

  /// `GET /v1/admin/…` with the secret key.
  func admin(_ path: String) async throws -> (Int, JSONValue?) {
    var request = URLRequest(url: baseURL.appendingPathComponent(path))
    request.setValue("Bearer \(keys.secretKey)", forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as! HTTPURLResponse).statusCode, try? WireCoding.decoder.decode(JSONValue.self, from: data))
  }

  /// An admin request with a body (the secret key), as a script or the console sends it.
  func admin(_ method: String, _ path: String, body: Data, contentType: String = "application/json") async throws
    -> (Int, JSONValue?)
  {
    var request = URLRequest(url: baseURL.appendingPathComponent(path))
    request.httpMethod = method
    request.httpBody = body
    request.setValue(contentType, forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(keys.secretKey)", forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as! HTTPURLResponse).statusCode, try? WireCoding.decoder.decode(JSONValue.self, from: data))
  }

  /// The fallback file as `tollgate export-fallback` writes it.
  func exportFallback() throws -> URL {
    let url = directory.appendingPathComponent("fallback.json")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FallbackExport(database: store).fallbackFile(appId: keys.app.id)!.write(to: url)
    return url
  }
}

/// Forgets the process-wide SDK state, as if the app had quit.
func quitApp() async {
  await Facade.shared.reset()
  AdaptyUI.reset()
  FallbackFlows.shared.reset()
  Adapty.delegate = nil
}
