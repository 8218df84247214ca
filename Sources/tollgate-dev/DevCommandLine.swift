import Foundation
import TollgateCommandLine
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate-dev <command>`: what developers and tests run beside a server, never shipped
/// with it — the demo, the Apple Ads stand-in and the StoreKit signer.
enum DevCommandLine {
  static let usage = """
    usage: tollgate-dev <command> [options]

    For development, tests and demos only: the shipped `tollgate` has none of these.

    commands:
      demo [--config FILE] [--installs N]
                                  first-launch timeline: server, Apple Ads stand-in and simulated
                                  devices in one process; then N installs (default 1600) that
                                  view and buy, the reports, and a webhook to a local receiver
          --keep FILE             keep the demo's data in FILE (a new SQLite file) and print its
                                  keys: `serve --database FILE` shows it in the console
      storekit-sign --keys DIR [FILE]
                                  sign a transaction, renewal info or notification (JSON from
                                  FILE or stdin) the way the App Store does, with a local chain
                                  kept in DIR (created on first use; DIR/root.pem is what
                                  --app-store-root-ca takes): tests and demos only
      apple-ads-sandbox [--host 127.0.0.1] [--port 8081]
                                  a local stand-in for Apple's attribution API, scripted by
                                  token (sbx|campaign=N|delay_ms=N|not_found=K|…): tests only
      apple-ads-api-sandbox --public-key FILE [--client-id ID] [--team-id ID] [--key-id ID]
            [--org-id N] [--currency USD] [--host 127.0.0.1] [--port 8082]
                                  a local stand-in for Apple Ads' Campaign Management API and
                                  Apple's token endpoint: checks client secrets against the
                                  public key in FILE, serves the demo campaigns' daily spend
                                  (the campaigns the attribution stand-in's demo tokens name)
      app-store-api-sandbox --state FILE [--host 127.0.0.1] [--port 8083]
                                  a local stand-in for Apple's App Store Server API serving what
                                  `demo --keep` saved beside its database (app-store-api.json):
                                  the In-App Purchase key it accepts, Apple's notification
                                  history, orders and customers' histories
      openid-sandbox --client-id ID --client-secret-file FILE [--algorithm RS256|ES256]
            [--host 127.0.0.1] [--port 8084]
                                  a local stand-in OpenID Connect provider (discovery, keys,
                                  a sign-in page where you type any e-mail, a token endpoint
                                  that checks the secret and PKCE): for `tollgate sso set`
                                  in tests and demos only
    """

  /// Runs a command; returns the process exit status.
  static func run(_ arguments: [String]) async -> Int32 {
    await ToolRun.run("tollgate-dev", usage: usage, arguments) { options in
      switch options.command {
      case ["demo"]:
        let config = options.value("--config", env: nil) ?? "examples/sample-config.json"
        let installs = options.value("--installs", env: nil).flatMap(Int.init) ?? 1_600
        let keep = options.value("--keep", env: nil)
        try options.finish()
        try await Demo.run(configPath: config, installs: installs, keep: keep)
      case ["apple-ads-sandbox"]: try await appleAdsSandbox(&options)
      case ["apple-ads-api-sandbox"]: try await campaignSandbox(&options)
      case ["app-store-api-sandbox"]: try await appStoreSandbox(&options)
      case ["openid-sandbox"]: try await openIDSandbox(&options)
      case ["storekit-sign"]: try storeKitSign(&options)
      default: return false
      }
      return true
    }
  }

  static func appleAdsSandbox(_ options: inout Options) async throws {
    let host = options.value("--host", env: nil) ?? "127.0.0.1"
    guard let port = UInt16(options.value("--port", env: nil) ?? "8081") else { throw Failure("--port takes a number") }
    try options.finish()
    let sandbox = AppleAdsSandbox()
    let url = try sandbox.start(host: host, port: port)
    say("Apple Ads stand-in (for tests and demos only) at \(url)")
    say("start the server with: tollgate serve --apple-ads-url \(url)")
    _ = await Signals.next([SIGINT, SIGTERM])
    sandbox.stop()
  }

  static func openIDSandbox(_ options: inout Options) async throws {
    let clientId = try options.required("--client-id")
    let secretFile = try options.required("--client-secret-file")
    guard let algorithm = OpenIDProviderSandbox.Algorithm(rawValue: options.value("--algorithm", env: nil) ?? "RS256")
    else { throw Failure("--algorithm is RS256 or ES256") }
    let host = options.value("--host", env: nil) ?? "127.0.0.1"
    guard let port = UInt16(options.value("--port", env: nil) ?? "8084") else { throw Failure("--port takes a number") }
    try options.finish()
    guard let secret = try? String(contentsOfFile: secretFile, encoding: .utf8) else {
      throw Failure("cannot read \(secretFile)")
    }
    let provider = try OpenIDProviderSandbox(
      clientId: clientId, clientSecret: secret.trimmingCharacters(in: .whitespacesAndNewlines), algorithm: algorithm)
    let issuer = try provider.start(host: host, port: port)
    say("OpenID Connect stand-in (for tests and demos only) at \(issuer)")
    say(
      "set it up with: tollgate sso set --issuer \(issuer) --client-id \(clientId) --client-secret-file \(secretFile)")
    _ = await Signals.next([SIGINT, SIGTERM])
    provider.stop()
  }

  static func appStoreSandbox(_ options: inout Options) async throws {
    let file = try options.required("--state")
    let host = options.value("--host", env: nil) ?? "127.0.0.1"
    guard let port = UInt16(options.value("--port", env: nil) ?? "8083") else { throw Failure("--port takes a number") }
    try options.finish()
    let fixture: AppStoreServerSandbox.Fixture
    do {
      fixture = try JSONDecoder().decode(
        AppStoreServerSandbox.Fixture.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
    } catch {
      throw Failure("cannot read \(file): \(error)")
    }
    let sandbox = AppStoreServerSandbox()
    sandbox.load(fixture)
    let url = try sandbox.start(host: host, port: port)
    say("App Store Server API stand-in (for tests and demos only) at \(url)")
    say(
      "start the server with: tollgate serve --app-store-api-url \(url)production/ --app-store-sandbox-api-url \(url)sandbox/"
    )
    _ = await Signals.next([SIGINT, SIGTERM])
    sandbox.stop()
  }

  static func campaignSandbox(_ options: inout Options) async throws {
    let keyFile = try options.required("--public-key")
    let client = options.value("--client-id", env: nil) ?? "SEARCHADS.local-client"
    let team = options.value("--team-id", env: nil) ?? "SEARCHADS.local-team"
    let keyId = options.value("--key-id", env: nil) ?? "local-key"
    guard let orgId = Int64(options.value("--org-id", env: nil) ?? "40669820") else {
      throw Failure("--org-id takes a number")
    }
    let currency = options.value("--currency", env: nil) ?? "USD"
    let host = options.value("--host", env: nil) ?? "127.0.0.1"
    guard let port = UInt16(options.value("--port", env: nil) ?? "8082") else { throw Failure("--port takes a number") }
    try options.finish()
    let pem: String
    do { pem = try String(contentsOfFile: keyFile, encoding: .utf8) } catch { throw Failure("cannot read \(keyFile)") }
    guard (try? ECKey(publicPEM: pem)) != nil else { throw Failure("\(keyFile) is not a PEM P-256 public key") }
    let sandbox = AppleAdsCampaignSandbox()
    sandbox.register(
      AppleAdsCampaignSandbox.Client(
        clientId: client, teamId: team, keyId: keyId, publicKeyPEM: pem, orgId: orgId, currency: currency))
    let url = try sandbox.start(host: host, port: port)
    say("Apple Ads Campaign Management API stand-in (for tests and demos only) at \(url)")
    say(
      "configuration: \"apple_ads_api\": {\"org_id\": \(orgId), \"client_id\": \"\(client)\", \"team_id\": \"\(team)\", \"key_id\": \"\(keyId)\"}"
    )
    say("start the server with: tollgate serve --apple-ads-api-url \(url)api/v5/ --apple-id-url \(url)")
    _ = await Signals.next([SIGINT, SIGTERM])
    sandbox.stop()
  }

  static func storeKitSign(_ options: inout Options) throws {
    let directory = URL(fileURLWithPath: try options.required("--keys"))
    let file = options.positional()
    try options.finish()
    let signer: StoreKitSigner
    if FileManager.default.fileExists(atPath: directory.appendingPathComponent("root.pem").path) {
      signer = try StoreKitSigner(directory: directory)
    } else {
      signer = try StoreKitSigner(appleNames: false)
      try signer.save(to: directory)
      FileHandle.standardError.write(
        Data(
          "tollgate-dev: created a StoreKit test chain in \(directory.path); trust it with --app-store-root-ca \(directory.appendingPathComponent("root.pem").path)\n"
            .utf8))
    }
    let input =
      try file.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? FileHandle.standardInput.readDataToEndOfFile()
    guard let object = (try? JSONSerialization.jsonObject(with: input)) as? [String: Any] else {
      throw Failure("storekit-sign reads one JSON object (a transaction, renewal info or notification)", status: 1)
    }
    print(try signer.sign(json: object))
  }
}
