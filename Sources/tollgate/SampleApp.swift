import Foundation
import TollgateCommandLine
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `make run`'s first-start experience: an app named "sample" with the sample config, its
/// keys printed once, and curl commands that work as printed.
enum SampleApp {
  static let name = "sample"

  /// Who the sample app's owner invitation is for (`TOLLGATE_SAMPLE_OWNER`).
  static var ownerEmail: String {
    ProcessInfo.processInfo.environment["TOLLGATE_SAMPLE_OWNER"] ?? "you@example.com"
  }

  /// The file beside the database that keeps the sample app's public key.
  static func keyFile(databasePath: String) -> URL {
    (StoreLocation.isPostgres(databasePath)
      ? URL(fileURLWithPath: "data") : URL(fileURLWithPath: databasePath).deletingLastPathComponent())
      .appendingPathComponent("sample-public-key.txt")
  }

  /// Creates the app with the configuration on first start (before the server serves).
  static func prepare(store: any Database, configPath: String, databasePath: String) throws {
    // The public key is not a secret (it ships inside apps), so it is kept beside the
    // database to print working curl commands on every start; the secret key is not.
    let keyFile = keyFile(databasePath: databasePath)
    try FileManager.default.createDirectory(at: keyFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    if try store.app(named: name) == nil {
      let keys = try KeyIssuer(apps: store).issue(appName: name)
      let config = try ConfigImporter(database: store).apply(
        try Data(contentsOf: URL(fileURLWithPath: configPath)), appId: keys.app.id)
      try Data(keys.publicKey.utf8).write(to: keyFile, options: .atomic)
      say(
        """

        Created app "\(name)" and imported \(configPath) as revision \(config.revision).
          public key (SDK):   \(keys.publicKey)
          secret key (admin): \(keys.secretKey)
        The secret key is stored hashed and will not be shown again: save it now.
        """)
    }
  }

  /// Prints working commands and the way into the console, once the server listens on `port`.
  static func announce(store: any Database, databasePath: String, host: String, port: UInt16, publicURL: String?) throws
  {
    guard let publicKey = try? String(contentsOf: keyFile(databasePath: databasePath), encoding: .utf8) else { return }
    let base = publicURL ?? "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
    // Until an owner has joined, each start prints a fresh invitation (links are stored hashed).
    var console = "Console: \(base)/dashboard (sign in with your e-mail and password)"
    if let app = try store.app(named: name), try !PeopleService(database: store).hasOwner(appId: app.id) {
      let (token, _) = try PeopleService(database: store).invite(
        appId: app.id, email: ownerEmail, role: "owner", by: "cli")
      console = """
        Console: open this link to become the sample app's owner (\(ownerEmail)) and choose a password:
          \(PeopleService.link(base: base, token: token))
        """
    }
    let profile = "3f2b8a7e-5c1d-4e9f-a6b0-1d2c3e4f5a6b"
    say(
      """

      Try it (profile \(profile)):
        curl -s -X POST \(base)/v1/sdk/profiles -H 'Authorization: Api-Key \(publicKey)' -H 'Content-Type: application/json' -d '{"profile_id":"\(profile)","install":{"app_version":"1.0.0","locale":"fr-FR"}}'
        curl -s '\(base)/v1/sdk/placements/onboarding/flow?profile_id=\(profile)&locale=fr' -H 'Authorization: Api-Key \(publicKey)'
        curl -s '\(base)/v1/sdk/placements/onboarding/default?locale=en' -H 'Authorization: Api-Key \(publicKey)'

      \(console)

      """)
  }
}
