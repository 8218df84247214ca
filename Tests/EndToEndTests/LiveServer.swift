import Foundation
import TollgateAPI
import TollgateServer

@testable import Adapty

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

let repositoryRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A real Tollgate server on a loopback port with the sample configuration, plus a fresh
/// SDK storage directory: what an app and its backend look like in these tests.
final class LiveServer: Sendable {
  let directory: URL
  let store: SQLiteStore
  let server: Server
  let port: UInt16
  let keys: KeyIssuer.IssuedKeys

  init(config: String? = nil) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("tollgate-e2e-\(UUID().uuidString)")
    store = try SQLiteStore(path: directory.appendingPathComponent("server/tollgate.sqlite").path)
    keys = try KeyIssuer(store: store).issue(appName: "e2e")
    let document =
      try config.map { Data($0.utf8) }
      ?? Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    _ = try ConfigImporter(store: store).apply(document, appId: keys.app.id)
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.threads = 2
    server = Server(store: store, settings: settings, logger: Logger(level: .warn))
    port = try server.start()
  }

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  /// The SDK's files for one install of the app.
  var sdkDirectory: URL { directory.appendingPathComponent("sdk") }

  /// The app's configuration; the install reports app version 2.4.0.
  func configuration(storage: URL? = nil) -> AdaptyConfiguration {
    let builder = AdaptyConfiguration.builder(withAPIKey: keys.publicKey)
      .with(backendBaseUrl: baseURL)
      .with(storageDirectory: storage ?? sdkDirectory)
      .with(logLevel: .warn)
    builder.dependencies.installInfo = {
      InstallInfo(appVersion: "2.4.0", osVersion: "17.5", deviceModel: "iPhone15,2", locale: "fr-FR")
    }
    return builder.build()
  }

  func stop() { server.stop() }

  /// Applies an attribution source to a profile directly in the store (the attribution
  /// pipeline that does this for real is exercised by its own tests).
  func applyAttribution(_ source: String, to profileId: String) throws {
    _ = try store.updateProfile(appId: keys.app.id, id: profileId, at: Date()) { profile in
      profile.appliedSources = Array(Set(profile.appliedSources + [source])).sorted()
      return true
    }
  }

  /// `GET /v1/admin/…` with the secret key.
  func admin(_ path: String) async throws -> (Int, JSONValue?) {
    var request = URLRequest(url: baseURL.appendingPathComponent(path))
    request.setValue("Bearer \(keys.secretKey)", forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as! HTTPURLResponse).statusCode, try? WireCoding.decoder.decode(JSONValue.self, from: data))
  }

  /// The fallback file as `tollgate export-fallback` writes it.
  func exportFallback() throws -> URL {
    let url = directory.appendingPathComponent("fallback.json")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try FallbackExport(store: store).fallbackFile(appId: keys.app.id)!.write(to: url)
    return url
  }
}

/// Forgets the process-wide SDK state, as if the app had quit.
func quitApp() async {
  await Facade.shared.reset()
  FallbackFlows.shared.reset()
  Adapty.delegate = nil
}
