import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Runs the built `tollgate` executable, as an operator would.
struct CLI {
  static let executable = ServeProcess.executable
  /// The development tools (demo, stand-ins), not shipped.
  static let devExecutable = ServeProcess.executable.deletingLastPathComponent().appendingPathComponent("tollgate-dev")

  let database: String
  var executable = CLI.executable

  struct Outcome {
    let status: Int32
    let stdout: String
    let stderr: String
  }

  func run(_ arguments: [String]) throws -> Outcome {
    try runPlain(arguments + ["--database", database])
  }

  /// Runs without adding `--database`.
  func runPlain(_ arguments: [String]) throws -> Outcome {
    let (status, stdout, stderr) = try spawnCapturing([executable.path] + arguments)
    return Outcome(status: status, stdout: stdout, stderr: stderr)
  }
}

@Suite("Command line", .enabled(if: FileManager.default.fileExists(atPath: CLI.executable.path)))
struct CommandLineTests {
  @Test("keys create, import and export-fallback work on one database file")
  func keysImportExport() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("cli.sqlite").path)
    let keys = try cli.run(["keys", "create", "--app", "shop"])
    #expect(keys.status == 0)
    #expect(keys.stdout.contains("public key: tg_pub_"))
    #expect(keys.stdout.contains("secret key: tg_sec_"))

    let sample = repositoryRoot.appendingPathComponent("examples/sample-config.json").path
    let imported = try cli.run(["import", sample, "--app", "shop"])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stdout.contains("revision 1"))

    let exported = try cli.run(["export-fallback", "--app", "shop"])
    #expect(exported.status == 0)
    let file = try WireCoding.decoder.decode(FallbackFile.self, from: Data(exported.stdout.utf8))
    #expect(file.revision == 1)
    #expect(file.placements.map(\.id) == ["onboarding", "settings_upgrade"])
  }

  @Test("lists put/get/list/delete: a file becomes a saved list a configuration may name; a used list stays")
  func savedLists() throws {
    let directory = temporaryDirectory()
    let cli = CLI(database: directory.appendingPathComponent("cli.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let file = directory.appendingPathComponent("churned.txt")
    try Data("user-2\r\nuser-1\n\nuser-2\n".utf8).write(to: file)
    let put = try cli.run(["lists", "put", "churned_q3", file.path, "--app", "shop"])
    #expect(put.status == 0, "\(put.stderr)")
    #expect(put.stdout.contains("created list churned_q3 of shop: 2 values"))
    let config = directory.appendingPathComponent("config.json")
    try Data(SavedListTests.listConfig.utf8).write(to: config)
    #expect(try cli.run(["import", config.path, "--app", "shop"]).status == 0)
    let shown = try cli.run(["lists", "get", "churned_q3", "--app", "shop"])
    #expect(shown.stdout.contains("size:     2") && shown.stdout.contains("used by:  churned"))
    #expect(try cli.run(["lists", "list", "--app", "shop"]).stdout.contains("churned_q3"))
    let refused = try cli.run(["lists", "delete", "churned_q3", "--app", "shop"])
    #expect(refused.status == 1 && refused.stderr.contains("churned"))
    let missing = try cli.run(["lists", "put", "x", directory.appendingPathComponent("absent").path, "--app", "shop"])
    #expect(missing.status != 0 && missing.stderr.contains("cannot read"))
  }

  @Test("keys list/create/revoke, config history/show/rollback, audit, backup and restore from the command line")
  func operations() throws {
    let directory = temporaryDirectory()
    let cli = CLI(database: directory.appendingPathComponent("cli.sqlite").path)
    let created = try cli.run(["keys", "create", "--app", "shop"])
    #expect(created.status == 0)
    let one = try cli.run(["keys", "create", "--app", "shop", "--kind", "public", "--label", "iOS 2"])
    #expect(one.status == 0, "\(one.stderr)")
    let id = try #require(one.stdout.split(separator: "\n").first { $0.hasPrefix("id:") }?.split(separator: " ").last)
    let listed = try cli.run(["keys", "list", "--app", "shop"])
    #expect(listed.stdout.split(separator: "\n").count == 4, "header and three keys")
    #expect(listed.stdout.contains("iOS 2"))
    #expect(!listed.stdout.contains("tg_pub_"), "keys are never shown again")
    let revoked = try cli.run(["keys", "revoke", String(id), "--app", "shop"])
    #expect(revoked.status == 0, "\(revoked.stderr)")
    #expect(revoked.stdout.contains("revoked at"))
    #expect(try cli.run(["keys", "revoke", "key_0000000000000000", "--app", "shop"]).status == 1)
    #expect(try cli.run(["keys", "create", "--app", "shop", "--kind", "root"]).status == 2)

    let sample = repositoryRoot.appendingPathComponent("examples/sample-config.json").path
    #expect(try cli.run(["import", sample, "--app", "shop"]).status == 0)
    let smaller = directory.appendingPathComponent("smaller.json")
    try Data(#"{"flows":[{"id":"a"}],"placements":[{"id":"onboarding","default":"a"}]}"#.utf8).write(to: smaller)
    #expect(try cli.run(["import", smaller.path, "--app", "shop"]).status == 0)
    let history = try cli.run(["config", "history", "--app", "shop"])
    #expect(history.status == 0)
    #expect(history.stdout.contains("2*"))
    #expect(history.stdout.contains("placements ~onboarding -settings_upgrade"))
    let shown = try cli.run(["config", "show", "1", "--app", "shop"])
    #expect(shown.stdout.contains("settings_upgrade"))
    let rolled = try cli.run(["config", "rollback", "1", "--app", "shop"])
    #expect(rolled.status == 0, "\(rolled.stderr)")
    #expect(rolled.stdout.contains("revision 3"))
    #expect(try cli.run(["config", "history", "--app", "shop"]).stdout.contains("rollback to 1:"))
    #expect(try cli.run(["config", "show", "9", "--app", "shop"]).status == 1)

    let audit = try cli.run(["audit", "--app", "shop"])
    for action in ["key.created", "key.revoked", "config.applied", "config.rolled_back"] {
      #expect(audit.stdout.contains(action), "\(action)")
    }

    let backup = directory.appendingPathComponent("shop-backup.sqlite").path
    let backedUp = try cli.run(["backup", "--to", backup])
    #expect(backedUp.status == 0, "\(backedUp.stderr)")
    #expect(try cli.run(["backup", "--to", backup]).status == 1, "never overwrites")
    let restoredDatabase = directory.appendingPathComponent("restored/tollgate.sqlite").path
    let restored = try CLI(database: restoredDatabase).run(["restore", "--from", backup])
    #expect(restored.status == 0, "\(restored.stderr)")
    let again = try CLI(database: restoredDatabase).run(["config", "history", "--app", "shop"])
    let original = try cli.run(["config", "history", "--app", "shop"])
    #expect(again.stdout == original.stdout)
    #expect(try CLI(database: restoredDatabase).run(["restore", "--from", backup]).status == 1)
  }

  @Test("an invalid document is refused with every path, and the revision stays")
  func invalidImport() throws {
    let directory = temporaryDirectory()
    let cli = CLI(database: directory.appendingPathComponent("cli.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let bad = directory.appendingPathComponent("bad.json")
    try Data(#"{"flows":[{"id":"a"}],"placements":[{"id":"p","default":"nope"}],"extra":1}"#.utf8).write(to: bad)
    let outcome = try cli.run(["import", bad.path, "--app", "shop"])
    #expect(outcome.status == 1)
    #expect(outcome.stderr.contains("$.placements[0].default: unknown flow nope"))
    #expect(outcome.stderr.contains("$.extra: unknown key"))
    #expect(try cli.run(["export-fallback", "--app", "shop"]).status == 1)
    #expect(try cli.run(["import", bad.path, "--app", "nobody"]).status == 1)
  }

  @Test("app-store credentials, status, recover, test-notification and order from the command line")
  func appStore() throws {
    let directory = temporaryDirectory()
    let cli = CLI(database: directory.appendingPathComponent("cli.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    var document =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
      as! [String: Any]
    document["app_store"] = [
      "bundle_id": "com.example.tollgate", "environments": ["Sandbox"],
      "server_api": ["issuer_id": "6d2c9b1e-3f4a-4b5c-8d7e-9f0a1b2c3d4e", "key_id": "ABCDE12345"],
    ]
    let config = directory.appendingPathComponent("config.json")
    try JSONSerialization.data(withJSONObject: document).write(to: config)
    #expect(try cli.run(["import", config.path, "--app", "shop"]).status == 0)
    let before = try cli.run(["app-store", "status", "--app", "shop"])
    #expect(before.status == 0 && before.stdout.contains("In-App Purchase key: none"), "\(before.stderr)")
    let recoverWithoutKey = try cli.run(["app-store", "recover", "--app", "shop"])
    #expect(recoverWithoutKey.status != 0 && recoverWithoutKey.stderr.contains("In-App Purchase key"))
    let key = directory.appendingPathComponent("key.p8")
    try ECKey.generateP256().privatePEM.write(to: key, atomically: true, encoding: .utf8)
    let saved = try cli.run(["app-store", "credentials", "--app", "shop", "--key", key.path])
    #expect(saved.status == 0 && saved.stdout.contains("sealed the In-App Purchase key"), "\(saved.stderr)")
    let after = try cli.run(["app-store", "status", "--app", "shop"])
    #expect(after.stdout.contains("notification recovery, Sandbox: scheduled"), "\(after.stdout)")
    #expect(try cli.run(["app-store", "recover", "--app", "shop"]).status == 0)
    let test = try cli.run(["app-store", "test-notification", "--app", "shop"])
    #expect(test.status == 0 && test.stdout.contains("(Sandbox)"), "\(test.stdout) \(test.stderr)")
    #expect(try cli.run(["app-store", "status", "--app", "shop"]).stdout.contains("TEST notification (Sandbox)"))
    let order = try cli.run(["app-store", "order", "--app", "shop", "not-an-id!"])
    #expect(order.status != 0 && order.stderr.contains("order id"), "\(order.stderr)")
  }

  @Test("access grant/revoke go through the running server; app-store refresh and refund-requests read the database")
  func supportCommands() async throws {
    let directory = temporaryDirectory()
    let database = directory.appendingPathComponent("support.sqlite").path
    let cli = CLI(database: database)
    let keys = try cli.run(["keys", "create", "--app", "shop"])
    let publicKey = try #require(keys.stdout.firstMatch(of: /tg_pub_[0-9a-f]+/).map { String($0.0) })
    let secretKey = try #require(keys.stdout.firstMatch(of: /tg_sec_[0-9a-f]+/).map { String($0.0) })
    var document =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
      as! [String: Any]
    document["app_store"] = ["bundle_id": "com.example.tollgate", "environments": ["Sandbox"]]
    let config = directory.appendingPathComponent("config.json")
    try JSONSerialization.data(withJSONObject: document).write(to: config)
    #expect(try cli.run(["import", config.path, "--app", "shop"]).status == 0)
    let server = try ServeProcess(["--database", database])
    defer { _ = server.stop() }
    let url = "http://127.0.0.1:\(server.port)"
    let id = UUID().uuidString.lowercased()
    var create = URLRequest(url: URL(string: url + "/v1/sdk/profiles")!)
    create.httpMethod = "POST"
    create.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
    create.setValue("application/json", forHTTPHeaderField: "Content-Type")
    create.httpBody = Data(#"{"profile_id":"\#(id)"}"#.utf8)
    _ = try await TestServer.session.data(for: create)
    func premium() async throws -> Bool? {
      var read = URLRequest(url: URL(string: url + "/v1/sdk/profiles/\(id)")!)
      read.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
      let (data, _) = try await TestServer.session.data(for: read)
      return try WireCoding.decoder.decode(ProfilePayload.self, from: data).accessLevels["premium"]?.isActive
    }
    #expect(try await premium() == nil)
    let server_ = ["--server", url, "--key", secretKey]
    let granted = try cli.runPlain(["access", "grant", id, "premium", "--lifetime", "--reason", "press"] + server_)
    #expect(granted.status == 0 && granted.stdout.contains("for life"), "\(granted.stdout) \(granted.stderr)")
    #expect(try await premium() == true, "the running server's cache saw it")
    let unknown = try cli.runPlain(["access", "grant", id, "gold", "--lifetime", "--reason", "x"] + server_)
    #expect(unknown.status != 0 && unknown.stderr.contains("access_level_not_found"), "\(unknown.stderr)")
    let both = try cli.runPlain(["access", "grant", id, "premium", "--reason", "x"] + server_)
    #expect(both.status != 0 && both.stderr.contains("--expires"))
    let revoked = try cli.runPlain(["access", "revoke", id, "premium"] + server_)
    #expect(revoked.status == 0 && revoked.stdout.contains("took back 1"), "\(revoked.stderr)")
    #expect(try await premium() == false)
    let nowhere = try cli.runPlain(["access", "revoke", id, "premium", "--server", "http://127.0.0.1:1", "--key", "k"])
    #expect(nowhere.status != 0 && nowhere.stderr.contains("no Tollgate server answers"), "\(nowhere.stderr)")
    let refresh = try cli.run(["app-store", "refresh", "--app", "shop", "--profile", id])
    #expect(refresh.status != 0 && refresh.stderr.contains("owns no App Store transaction"), "\(refresh.stderr)")
    let refunds = try cli.run(["app-store", "refund-requests", "--app", "shop"])
    #expect(refunds.status == 0 && refunds.stdout.contains("refund requests of shop"), "\(refunds.stderr)")
    let badDay = try cli.run(["app-store", "refund-requests", "--app", "shop", "--from", "yesterday"])
    #expect(badDay.status != 0 && badDay.stderr.contains("UTC day"))
  }

  @Test(
    "import profiles: a file of 40 000 profiles killed (SIGKILL) half-way and imported again: each profile once, refusals listed"
  )
  func importProfilesKilled() throws {
    let directory = temporaryDirectory()
    let database = directory.appendingPathComponent("import.sqlite").path
    let cli = CLI(database: database)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let file = directory.appendingPathComponent("profiles.ndjson")
    var text = ""
    for index in 0..<40_000 {
      text +=
        #"{"customer_user_id":"user-\#(index)","installed_at":"2025-\#(String(format: "%02d", index % 12 + 1))-15T10:00:00Z","store_country":"USA"}"#
        + "\n"
    }
    text += #"{"customer_user_id":"user-late","installed_at":"next week"}"# + "\n"
    try Data(text.utf8).write(to: file)
    let child = try ChildProcess(
      ServeProcess.executable.path, ["import", "profiles", file.path, "--app", "shop", "--database", database],
      discardErrors: true)
    // Killed as soon as its first batch (10 000 lines, committed on its own) is stored.
    var stored = 0
    for _ in 0..<1_000 where stored == 0 {
      Thread.sleep(forTimeInterval: 0.02)
      // A bare reading connection: opening a store would wait for the import's write lock,
      // which the import holds batch after batch.
      stored =
        (try? SQLiteConnection(path: database)).flatMap { connection in
          defer { connection.close() }
          return try? connection.query("SELECT COUNT(*) AS profiles FROM profiles").first?.decode(
            "profiles", as: Int64.self)
        }.map(Int.init) ?? 0
    }
    _ = child.kill(SIGKILL)
    #expect(stored > 0 && stored < 40_000, "killed half-way: \(stored) stored")
    let refusals = directory.appendingPathComponent("refused.ndjson")
    let again = try cli.run(["import", "profiles", file.path, "--app", "shop", "--refusals", refusals.path])
    #expect(again.status == 0, "\(again.stderr)")
    let counts = try #require(
      again.stdout.firstMatch(of: /(\d+) lines, (\d+) profiles imported, (\d+) already there, (\d+) refused/))
    #expect(
      Int(counts.1) == 40_001 && Int(counts.2)! + Int(counts.3)! == 40_000 && Int(counts.4) == 1, "\(again.stdout)")
    let store = try SQLiteStore(path: database)
    defer { store.close() }
    let app = try #require(try store.app(named: "shop"))
    #expect(try store.profileCount(appId: app.id) == 40_000, "each profile once")
    let refused = try String(contentsOf: refusals, encoding: .utf8)
    #expect(refused.contains("\"line\":40001") && refused.contains("installed_at"), "\(refused.prefix(300))")
    let history = try cli.run(["import", "history", "--app", "shop"])
    #expect(history.status == 0 && history.stdout.contains("0 of 0 customers done"), "\(history.stdout)")
    // --follow waits while some are pending: none is, so it answers at once.
    let followed = try cli.run(["import", "history", "--app", "shop", "--follow"])
    #expect(followed.status == 0 && followed.stdout.contains("0 of 0 customers done"), "\(followed.stdout)")
  }

  @Test(
    "import profiles --from revenuecat|adapty reads the peers' exports: a line per customer, their App Store transaction ids"
  )
  func importPeers() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("peers.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let examples = repositoryRoot.appendingPathComponent("examples/migration")
    let revenueCat = try cli.run([
      "import", "profiles", examples.appendingPathComponent("revenuecat-transactions.csv").path, "--app", "shop",
      "--from", "revenuecat",
    ])
    #expect(revenueCat.status == 0, "\(revenueCat.stderr)")
    #expect(
      revenueCat.stdout.contains("3 lines, 3 profiles imported, 0 already there, 1 refused"), "\(revenueCat.stdout)")
    #expect(revenueCat.stdout.contains("2 customers' App Store history"), "\(revenueCat.stdout)")
    #expect(revenueCat.stdout.contains("line 6 $: no customer id"), "\(revenueCat.stdout)")
    let adapty = try cli.run([
      "import", "profiles", examples.appendingPathComponent("adapty-events.csv").path, "--app", "shop", "--from",
      "adapty",
    ])
    #expect(adapty.status == 0, "\(adapty.stderr)")
    #expect(adapty.stdout.contains("3 lines, 2 profiles imported, 0 already there, 1 refused"), "\(adapty.stdout)")
    #expect(adapty.stdout.contains("line 5 $.installed_at"), "\(adapty.stdout)")
    let store = try SQLiteStore(path: cli.database)
    defer { store.close() }
    let app = try #require(try store.app(named: "shop"))
    let customer = try #require(try store.profile(appId: app.id, customerUserId: "user-1001"))
    #expect(customer.createdAt == Date(timeIntervalSince1970: 1_740_816_000), "first_seen_time 2025-03-01 08:00:00")
    // RevenueCat's alpha-2 country is kept as the alpha-3 the SDK sends.
    #expect(customer.install.storeCountry == "USA" && customer.customAttributes["plan"] == .string("gold"))
    let adaptyProfile = try #require(try store.profile(appId: app.id, id: "3f8a2b1c-4d5e-4f60-8a7b-9c0d1e2f3a4b"))
    #expect(adaptyProfile.customerUserId == "user-3003" && adaptyProfile.install.storeCountry == "USA")
    #expect(try store.historyImportProgress(appId: app.id).customers == 4)
    let wrong = try cli.run([
      "import", "profiles", examples.appendingPathComponent("adapty-events.csv").path, "--app", "shop", "--from",
      "revenuecat",
    ])
    #expect(wrong.stdout.contains("the header lacks"), "\(wrong.stdout) \(wrong.stderr)")
  }

  @Test("a gzipped export imports as delivered; one cut short stops before anything is stored")
  func importGzipped() throws {
    let directory = temporaryDirectory()
    let cli = CLI(database: directory.appendingPathComponent("gzip.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let csv = repositoryRoot.appendingPathComponent("examples/migration/revenuecat-transactions.csv")
    let packed = directory.appendingPathComponent("transactions.csv.gz")
    let gzip = Process()
    gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
    gzip.arguments = ["-c", csv.path]
    let pipe = Pipe()
    gzip.standardOutput = pipe
    try gzip.run()
    let compressed = pipe.fileHandleForReading.readDataToEndOfFile()
    gzip.waitUntilExit()
    try compressed.write(to: packed)
    let cut = directory.appendingPathComponent("cut.csv.gz")
    try compressed.prefix(compressed.count - 12).write(to: cut)

    let broken = try cli.run(["import", "profiles", cut.path, "--app", "shop", "--from", "revenuecat"])
    #expect(broken.status != 0 && broken.stderr.contains("damaged or cut short"), "\(broken.stdout) \(broken.stderr)")
    let whole = try cli.run(["import", "profiles", packed.path, "--app", "shop", "--from", "revenuecat"])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(whole.stdout.contains("3 lines, 3 profiles imported, 0 already there, 1 refused"), "\(whole.stdout)")
  }

  @Test("usage errors exit 2 with a message")
  func usageErrors() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("cli.sqlite").path)
    let unknown = try cli.run(["frobnicate"])
    #expect(unknown.status == 2)
    #expect(unknown.stderr.contains("unknown command"))
    let typo = try cli.run(["keys", "create", "--app", "x", "--colour", "red"])
    #expect(typo.status == 2)
    #expect(typo.stderr.contains("unknown option --colour"))
  }

  @Test("a server killed with SIGKILL loses no acknowledged write")
  func killed() async throws {
    let directory = temporaryDirectory()
    let database = directory.appendingPathComponent("killed.sqlite").path
    let cli = CLI(database: database)
    let keys = try cli.run(["keys", "create", "--app", "shop"])
    let publicKey = try #require(keys.stdout.firstMatch(of: /tg_pub_[0-9a-f]+/).map { String($0.0) })
    var server = try ServeProcess(["--database", database])
    var created: [String] = []
    for _ in 0..<50 {
      let id = UUID().uuidString.lowercased()
      var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/sdk/profiles")!)
      request.httpMethod = "POST"
      request.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = Data(#"{"profile_id":"\#(id)"}"#.utf8)
      let (_, response) = try await TestServer.session.data(for: request)
      if (response as? HTTPURLResponse)?.statusCode == 201 { created.append(id) }
    }
    #expect(created.count == 50)
    #expect(server.kill(SIGKILL) == .signal(SIGKILL))

    server = try ServeProcess(["--database", database])
    defer { server.stop() }
    for id in created {
      var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/sdk/profiles/\(id)")!)
      request.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
      let (_, response) = try await TestServer.session.data(for: request)
      #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(id)")
    }
  }

  @Test("a read replica needs PostgreSQL and a positive lag limit; sso set checks its provider")
  func refusedServeOptions() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("r.sqlite").path)
    let sqlite = try cli.run(["serve", "--port", "0", "--database-read-url", "postgres://tollgate@127.0.0.1:9/x"])
    #expect(sqlite.status == 2 && sqlite.stderr.contains("needs a PostgreSQL --database"), "\(sqlite.stderr)")
    let lag = try cli.run(["serve", "--port", "0", "--database-read-max-lag", "0"])
    #expect(lag.status == 2 && lag.stderr.contains("--database-read-max-lag"), "\(lag.stderr)")
    let secret = temporaryDirectory().appendingPathComponent("secret")
    try Data("s".utf8).write(to: secret)
    let unreachable = try cli.run([
      "sso", "set", "--issuer", "http://127.0.0.1:9", "--client-id", "c", "--client-secret-file", secret.path,
    ])
    #expect(unreachable.status == 2 && unreachable.stderr.contains("discovery document"), "\(unreachable.stderr)")
    let show = try cli.run(["sso", "show"])
    #expect(show.status == 0 && show.stdout.contains("single sign-on is off"), "\(show.stdout)")
  }

  @Test("serve answers, and SIGTERM stops it cleanly with the database checkpointed")
  func serveAndStop() async throws {
    let directory = temporaryDirectory()
    let database = directory.appendingPathComponent("serve.sqlite").path
    let server = try ServeProcess([
      "--database", database, "--sample-config",
      repositoryRoot.appendingPathComponent("examples/sample-config.json").path,
    ])
    let port = server.port
    let publicKey = try String(
      contentsOfFile: directory.appendingPathComponent("sample-public-key.txt").path, encoding: .utf8)
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/v1/sdk/placements/onboarding/default")!)
    request.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
    let (body, response) = try await TestServer.session.data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    #expect(try WireCoding.decoder.decode(PlacementFlowResponse.self, from: body).flow.id == "standard")

    #expect(server.stop() == .exit(0))
    let rest = String(decoding: server.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(rest.contains("stopped"))
    let wal = try? FileManager.default.attributesOfItem(atPath: database + "-wal")
    #expect((wal?[.size] as? Int ?? 0) == 0)
    let printed = String(decoding: server.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(printed.contains("secret key (admin): tg_sec_"))
    // The way in for a person: an owner invitation link, printed until an owner joins.
    let link = try #require(printed.split(separator: "\n").first { $0.contains("/dashboard/#invitation=") })
    #expect(link.contains("http://127.0.0.1:\(port)/dashboard/#invitation="))
    let token = String(link.split(separator: "=").last ?? "")
    let again = try ServeProcess([
      "--database", database, "--port", String(port), "--sample-config",
      repositoryRoot.appendingPathComponent("examples/sample-config.json").path,
    ])
    var offer = URLRequest(url: URL(string: "http://127.0.0.1:\(again.port)/v1/console/invitations/\(token)")!)
    offer.httpMethod = "GET"
    let (offered, offerResponse) = try await TestServer.session.data(for: offer)
    #expect((offerResponse as? HTTPURLResponse)?.statusCode == 200)
    let invitation = try JSONDecoder().decode([String: JSONValue].self, from: offered)
    #expect(invitation["email"] == .string("you@example.com") && invitation["role"] == .string("owner"))
    #expect(again.stop() == .exit(0))
  }

  @Test(
    "serve --attribution-queue-limit N: with N tokens waiting for Apple the next is 503 attribution_queue_full; 0 is refused"
  )
  func attributionQueueLimit() async throws {
    let directory = temporaryDirectory()
    let database = directory.appendingPathComponent("queue.sqlite").path
    let refused = try CLI(database: database).run(["serve", "--attribution-queue-limit", "0"])
    #expect(refused.status != 0 && refused.stderr.contains("--attribution-queue-limit takes"), "\(refused.stderr)")
    // Apple unreachable (a closed port): every token stays pending.
    let server = try ServeProcess([
      "--database", database, "--apple-ads-url", "http://127.0.0.1:9/", "--attribution-queue-limit", "2",
      "--rate-limit-tokens-per-key", "off", "--rate-limit-tokens-per-profile", "off", "--sample-config",
      repositoryRoot.appendingPathComponent("examples/sample-config.json").path,
    ])
    let publicKey = try String(
      contentsOfFile: directory.appendingPathComponent("sample-public-key.txt").path, encoding: .utf8)
    func post(_ path: String, _ body: String) async throws -> (Int, Data, String?) {
      var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)\(path)")!)
      request.httpMethod = "POST"
      request.httpBody = Data(body.utf8)
      request.setValue("Api-Key \(publicKey)", forHTTPHeaderField: "Authorization")
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.setValue("respond-async", forHTTPHeaderField: "Prefer")
      let (data, response) = try await TestServer.session.data(for: request)
      let http = response as? HTTPURLResponse
      return (http?.statusCode ?? 0, data, http?.value(forHTTPHeaderField: "Retry-After"))
    }
    var statuses: [Int] = []
    var last = Data()
    var retryAfter: String?
    for _ in 0..<3 {
      let id = UUID().uuidString.lowercased()
      #expect(try await post("/v1/sdk/profiles", #"{"profile_id":"\#(id)"}"#).0 == 201)
      let (status, body, wait) = try await post(RoutePaths.appleAdsAttribution(id), #"{"token":"token-\#(id)"}"#)
      statuses.append(status)
      (last, retryAfter) = (body, wait)
    }
    #expect(statuses == [202, 202, 503])
    #expect(try WireCoding.decoder.decode(APIErrorBody.self, from: last).error.code == "attribution_queue_full")
    #expect(retryAfter == "30")
    #expect(server.stop() == .exit(0))
  }

  @Test("keys create --scope --expires makes a limited secret key; keys list shows its scopes and expiry")
  func scopedKeys() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("cli.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let made = try cli.run(["keys", "create", "--app", "shop", "--scope", "reports:read", "--expires", "90d"])
    #expect(made.status == 0, "\(made.stderr)")
    #expect(made.stdout.contains("key:     tg_sec_") && made.stdout.contains("scopes:  reports:read"))
    #expect(made.stdout.contains("expires: "))
    let listed = try cli.run(["keys", "list", "--app", "shop"])
    #expect(listed.stdout.split(separator: "\n").contains { $0.contains("reports:read") && $0.contains("secret") })
    #expect(try cli.run(["keys", "create", "--app", "shop", "--scope", "god"]).status != 0)
    #expect(try cli.run(["keys", "create", "--app", "shop", "--expires", "0d"]).status != 0)
    #expect(try cli.run(["keys", "create", "--app", "shop", "--kind", "public", "--scope", "support"]).status != 0)
  }

  @Test("users add prints a one-time link; list, disable, enable and unlock; a wrong role or e-mail is refused")
  func users() throws {
    let cli = CLI(database: temporaryDirectory().appendingPathComponent("cli.sqlite").path)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let added = try cli.run([
      "users", "add", "Ana@Example.com", "--role", "editor", "--app", "shop", "--public-url", "https://tg.example.com",
    ])
    #expect(added.status == 0, "\(added.stderr)")
    #expect(added.stdout.contains("Invited ana@example.com to shop as editor"))
    #expect(added.stdout.contains("https://tg.example.com/dashboard/#invitation="))
    let listed = try cli.run(["users", "list", "--app", "shop"])
    #expect(listed.stdout.contains("ana@example.com") && listed.stdout.contains("invited until"))
    let badRole = try cli.run(["users", "add", "ben@example.com", "--role", "god", "--app", "shop"])
    #expect(badRole.status == 1)
    #expect(badRole.stderr.contains("owner, admin, editor, support, analyst, viewer"))
    let badEmail = try cli.run(["users", "add", "not-an-address", "--role", "viewer", "--app", "shop"])
    #expect(badEmail.status == 1)
    #expect(try cli.run(["users", "disable", "nobody@example.com"]).status == 1)

    // Once joined, the person can be disabled and enabled, and a lock lifted.
    let store = try SQLiteStore(path: cli.database)
    let token = String(added.stdout.split(separator: "=").last!.prefix { !$0.isWhitespace })
    let service = PeopleService(
      people: store, apps: store, hasher: .fastForTests, passwords: CommonPasswords.policy,
      policy: SessionPolicy(), time: SystemTimeSource())
    _ = try service.accept(token: token, password: "tangerine-kayak-orbit", name: nil)
    store.close()
    let disabled = try cli.run(["users", "disable", "ana@example.com"])
    #expect(disabled.status == 0 && disabled.stdout.contains("disabled"))
    #expect(try cli.run(["users", "list", "--app", "shop"]).stdout.contains("disabled"))
    #expect(try cli.run(["users", "enable", "ana@example.com"]).status == 0)
    #expect(try cli.run(["users", "unlock", "ana@example.com"]).status == 0)
    let reset = try cli.run(["users", "reset-password", "ana@example.com", "--app", "shop"])
    #expect(reset.status == 0 && reset.stdout.contains("/dashboard/#invitation="))
    #expect(try cli.run(["users", "reset-password", "nobody@example.com", "--app", "shop"]).status == 1)
    #expect(try cli.run(["users", "reset-two-factor", "ana@example.com"]).status == 0)
    let audit = try cli.run(["audit", "--app", "shop"])
    for action in [
      "person.invited", "person.joined", "person.disabled", "person.enabled", "person.unlocked",
      "person.password_reset_link", "person.two_factor_reset",
    ] {
      #expect(audit.stdout.contains(action), "\(action)")
    }
  }

  @Test(
    "report placement and subscriptions print the rollups as a table, JSON or CSV; rollups rebuild agrees with them")
  func reports() throws {
    let database = temporaryDirectory().appendingPathComponent("report.sqlite").path
    let cli = CLI(database: database)
    #expect(try cli.run(["keys", "create", "--app", "shop"]).status == 0)
    let sample = repositoryRoot.appendingPathComponent("examples/sample-config.json").path
    #expect(try cli.run(["import", sample, "--app", "shop"]).status == 0)
    do {
      let store = try SQLiteStore(path: database)
      defer { store.close() }
      let app = try #require(try store.app(named: "shop"))
      let now = Date()
      for index in 0..<3 {
        let id = "00000000-0000-4000-8000-00000000000\(index)"
        _ = try store.insertProfile(appId: app.id, ProfileRecord(id: id, createdAt: now, updatedAt: now))
        _ = try store.recordEvents(
          appId: app.id,
          [
            EventRecord(
              eventId: "e\(index)", profileId: id, placementId: "onboarding", audienceId: "default",
              variationId: "onboarding:default:standard", flowId: "standard", receivedAt: now)
          ])
      }
    }
    let table = try cli.run(["report", "placement", "onboarding", "--app", "shop"])
    #expect(table.status == 0, "\(table.stderr)")
    #expect(table.stdout.contains("All Users"))
    #expect(table.stdout.contains("standard"))
    let json = try cli.run(["report", "placement", "onboarding", "--app", "shop", "--format", "json"])
    let report = try JSONDecoder().decode(PlacementReport.self, from: Data(json.stdout.utf8))
    #expect(report.audiences.first?.variations.first?.uniqueViewers == 3)
    let csv = try cli.run(["report", "placement", "onboarding", "--app", "shop", "--format", "csv"])
    #expect(csv.stdout.split(separator: "\n").count == 2)
    #expect(csv.stdout.hasPrefix("audience_id,variation_id,unique_viewers"))
    let rebuild = try cli.run(["rollups", "rebuild", "--app", "shop"])
    #expect(rebuild.status == 0)
    #expect(rebuild.stdout.contains("the live rollups agreed exactly"))
    #expect(try cli.run(["report", "placement", "nope", "--app", "shop"]).status == 1)
    #expect(try cli.run(["report", "placement", "onboarding", "--app", "shop", "--from", "29-11-2026"]).status == 1)
    #expect(try cli.run(["report", "apple-ads", "--app", "shop", "--by", "country"]).status == 2)

    let subscriptions = try cli.run(["report", "subscriptions", "--app", "shop", "--by", "week", "--format", "json"])
    #expect(subscriptions.status == 0, "\(subscriptions.stderr)")
    let weekly = try JSONDecoder().decode(SubscriptionReport.self, from: Data(subscriptions.stdout.utf8))
    #expect(weekly.by == "week" && weekly.environment == "Production" && !weekly.periods.isEmpty)
    let sandbox = try cli.run(["report", "subscriptions", "--app", "shop", "--environment", "sandbox"])
    #expect(sandbox.status == 0 && sandbox.stdout.hasPrefix("Subscriptions (Sandbox)"))
    let cohorts = try cli.run(["report", "cohorts", "--app", "shop", "--segment", "variation", "--format", "json"])
    #expect(cohorts.status == 0, "\(cohorts.stderr)")
    let cohortReport = try JSONDecoder().decode(CohortReport.self, from: Data(cohorts.stdout.utf8))
    #expect(cohortReport.cohorts.reduce(0) { $0 + $1.installs } == 3)
    #expect(cohortReport.cohorts.map(\.segment) == ["onboarding:default:standard"])

    // Once raw views were expired, a rebuild would lose their impressions: refused, unless asked.
    do {
      let store = try SQLiteStore(path: database)
      defer { store.close() }
      #expect(try store.expireEvents(before: Date().addingTimeInterval(60), limit: 1_000) == 3)
    }
    let expiredRebuild = try cli.run(["rollups", "rebuild", "--app", "shop"])
    #expect(
      expiredRebuild.status == 1 && expiredRebuild.stderr.contains("--accept-expired"), "\(expiredRebuild.stderr)")
    let cohortsAfter = try cli.run(["report", "cohorts", "--app", "shop", "--segment", "variation", "--format", "json"])
    #expect(cohortsAfter.stdout == cohorts.stdout, "the cohort report does not change when raw views go")
    let accepted = try cli.run(["rollups", "rebuild", "--app", "shop", "--accept-expired"])
    #expect(accepted.status == 0 && accepted.stdout.contains("differed"), "\(accepted.stdout)")
    let cohortsRebuilt = try cli.run([
      "report", "cohorts", "--app", "shop", "--segment", "variation", "--format", "json",
    ])
    #expect(cohortsRebuilt.stdout == cohorts.stdout, "nor when the rollups are rebuilt without them")
    #expect(try cli.run(["report", "cohorts", "--app", "shop", "--segment", "planet"]).status == 2)
    let refused = try cli.run(["report", "subscriptions", "--app", "shop", "--campaign-id", "x"])
    #expect(refused.status == 2 && refused.stderr.contains("campaign-id is a number"))
  }
}
