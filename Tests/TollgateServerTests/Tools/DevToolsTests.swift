import Foundation
import Testing
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// What ships and what is a development tool stay apart: the production binary carries no
/// stand-in for Apple and no SDK, and the demo (in `tollgate-dev`) runs from start to end.
@Suite("Shipped binary and dev tools")
struct DevToolsTests {
  static let built = builtProducts

  @Test("the shipped tollgate links neither the SDK nor the stand-ins (its symbol table says so)")
  func shippedSymbols() throws {
    let binary = Self.built.appendingPathComponent("tollgate").path
    #expect(
      FileManager.default.isExecutableFile(atPath: binary), "build tollgate first: swift build --product tollgate")
    let (status, symbols, _) = try spawnCapturing(["nm", binary])
    #expect(status == 0)
    // Swift mangles a module name as its length and name: 14TollgateServer, 6Adapty.
    #expect(
      symbols.contains("14TollgateServer"), "nm read no Swift symbols of the server: the check would prove nothing")
    for forbidden in ["6Adapty", "16TollgateDevTools", "AppleAdsSandbox", "StoreKitSigner"] {
      let lines = symbols.split(separator: "\n").filter { $0.contains(forbidden) }
      #expect(lines.isEmpty, "tollgate links \(forbidden): \(lines.prefix(3))")
    }
    // The same check finds them where they belong.
    let (_, devSymbols, _) = try spawnCapturing(["nm", Self.built.appendingPathComponent("tollgate-dev").path])
    #expect(devSymbols.contains("AppleAdsSandbox") && devSymbols.contains("6Adapty"))
  }

  @Test("tollgate-dev demo runs whole: four first-launch timelines, installs, reports, signed webhooks")
  func demo() throws {
    // 400 installs: every step below has what it needs. The default 1 600 from one address,
    // which must not trip the demo's own rate limits, seed the browser test (make test).
    let outcome = try CLI(database: "unused", executable: CLI.devExecutable).runPlain([
      "demo", "--config", repositoryRoot.appendingPathComponent("examples/sample-config.json").path, "--installs",
      "400",
    ])
    #expect(outcome.status == 0, "\(outcome.stderr)")
    let lines = outcome.stdout.split(separator: "\n").filter { $0.contains(" flow \"") }
    #expect(lines.count == 4)
    guard lines.count == 4 else { return }
    #expect(lines[0].contains("device A: flow \"aa_offer") || lines[0].contains("device A: flow \"aa_offer_b"))
    #expect(lines[1].contains("device B: flow \"standard\""))
    #expect(lines[2].contains("device A: flow \"aa_offer"))
    #expect(lines[3].contains("bundled fallback file"))
    #expect(outcome.stdout.contains("$ tollgate report placement onboarding --app demo"))
    #expect(outcome.stdout.contains("$ tollgate report apple-ads --app demo --by keyword"))
    #expect(outcome.stdout.contains("profile v2 delivered, applied sources [\"apple_ads\"]"))
    #expect(outcome.stdout.contains("400 installs over the last 14 days"))
    #expect(outcome.stdout.contains("experiment \"AA price test\""))
    // The App Store: an outage's notifications recovered once, a refund request answered, support's tools.
    #expect(outcome.stdout.contains("notification recovery, Sandbox: recovered 3, already known 0, refused 0"))
    #expect(outcome.stdout.contains("premium ended by the recovered refund"))
    #expect(outcome.stdout.contains(#""refundPreference":"DECLINE""#))
    #expect(outcome.stdout.contains("premium active again (store promotional)"))
    #expect(outcome.stdout.contains("subscription_cancelled 2"))
    let webhooks = try #require(outcome.stdout.firstMatch(of: /(\d+) events, (\d+) with a valid Tollgate-Signature/))
    #expect(Int(webhooks.1)! > 0)
    #expect(webhooks.1 == webhooks.2)
  }

  @Test("demo --keep leaves its data, spread over days, where serve and the console can read it")
  func demoKept() throws {
    let file = temporaryDirectory().appendingPathComponent("kept/demo.sqlite")
    let arguments = [
      "demo", "--config", repositoryRoot.appendingPathComponent("examples/sample-config.json").path, "--installs",
      "32", "--keep", file.path,
    ]
    let outcome = try CLI(database: "unused", executable: CLI.devExecutable).runPlain(arguments)
    #expect(outcome.status == 0, "\(outcome.stderr)")
    let secret = try #require(outcome.stdout.firstMatch(of: /secret key: (tg_sec_[0-9a-f]+)/).map { String($0.1) })
    #expect(
      FileManager.default.fileExists(
        atPath: file.deletingLastPathComponent().appendingPathComponent("secrets.key").path))
    // What Apple's API stand-in was told, for tollgate-dev app-store-api-sandbox --state.
    let state = try JSONDecoder().decode(
      AppStoreServerSandbox.Fixture.self,
      from: Data(contentsOf: file.deletingLastPathComponent().appendingPathComponent("app-store-api.json")))
    #expect(state.client?.bundleId == "com.example.tollgate")
    let store = try SQLiteStore(path: file.path)
    defer { store.close() }
    let app = try #require(try store.app(named: "demo"))
    #expect(try store.key(hash: KeyIssuer.hash(secret))?.appId == app.id)
    let today = StatsDay.of(Date())
    let days = Set(
      try store.placementDays(appId: app.id, placementId: "onboarding", days: (today - 29)...today).map(\.day))
    #expect(days.count >= 7, "installs spread over the last 14 days: \(days.sorted())")
    let again = try CLI(database: "unused", executable: CLI.devExecutable).runPlain(arguments)
    #expect(again.status == 1 && again.stderr.contains("exists"))
  }
}
