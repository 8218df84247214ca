@_spi(Demo) import Adapty
import Foundation
import Synchronization
import TollgateAPI
import TollgateCommandLine
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate demo`: a server, the Apple Ads stand-in and simulated devices in one process,
/// printing the first-launch timeline of four scenarios.
enum Demo {
  static let placement = "onboarding"
  static let timeout: TimeInterval = 3

  /// Runs the demo; with `keep`, its data goes to that new SQLite file (webhook secrets sealed
  /// by `secrets.key` beside it, as `serve` does) and the app's keys are printed at the end, so
  /// `tollgate serve --database FILE` shows it all in the console.
  static func run(configPath: String, installs: Int, keep: String? = nil) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tollgate-demo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    if let keep, FileManager.default.fileExists(atPath: keep) {
      throw Failure("demo --keep: \(keep) exists; name a new file", status: 1)
    }
    let store = try SQLiteStore(path: keep ?? directory.appendingPathComponent("tollgate.sqlite").path)
    let keys = try KeyIssuer(apps: store).issue(appName: "demo")
    // The app's backend listens for webhooks; the configuration points one at it.
    let receiver = try DemoWebhookReceiver()
    defer { receiver.stop() }
    var document =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: configPath))) as? [String: Any]
      ?? [:]
    document["webhooks"] = [["id": "backend", "url": receiver.url.absoluteString, "events": ["*"]]]
    // Apple Ads spend comes from a stand-in of the Campaign Management API that knows the
    // public half of a key made here, for the days the simulated installs cover.
    let adsKey = try ECKey.generateP256()
    let adsClient = AppleAdsCampaignSandbox.Client(
      clientId: "SEARCHADS.demo-client", teamId: "SEARCHADS.demo-team", keyId: "demo-key",
      publicKeyPEM: adsKey.publicPEM,
      orgId: 40_669_820, currency: "USD", volume: 4)
    let campaignAPI = AppleAdsCampaignSandbox()
    campaignAPI.register(adsClient)
    let campaignURL = try campaignAPI.start()
    defer { campaignAPI.stop() }
    document["apple_ads_api"] = [
      "org_id": adsClient.orgId, "client_id": adsClient.clientId, "team_id": adsClient.teamId,
      "key_id": adsClient.keyId, "backfill_days": Int(DemoRevenue.spreadDays),
    ]
    // Apple's App Store Server API: a stand-in that knows the public half of an In-App Purchase key made here.
    let appStoreKey = try ECKey.generateP256()
    let appStoreClient = AppStoreServerSandbox.Client(
      issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "2X9R4HXF34", bundleId: "com.example.tollgate",
      publicKeyPEM: appStoreKey.publicPEM)
    var appStore = document["app_store"] as? [String: Any] ?? ["bundle_id": appStoreClient.bundleId]
    appStore["server_api"] = ["issuer_id": appStoreClient.issuerId, "key_id": appStoreClient.keyId]
    appStore["refund_requests"] = ["answer": true, "customer_consent": true, "preference": "decline"]
    document["app_store"] = appStore
    let secrets =
      try keep.map {
        try SecretBox.load(
          option: nil,
          defaultFile: URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("secrets.key"))
      } ?? SecretBox(key: Digest.randomBytes(32))
    let (_, created) = try ConfigImporter(database: store, secrets: secrets).applyReturningSecrets(
      JSONSerialization.data(withJSONObject: document), appId: keys.app.id)
    receiver.trust(created["backend"] ?? "")
    let fallbackFile = directory.appendingPathComponent("fallback.json")
    try FallbackExport(database: store).fallbackFile(appId: keys.app.id)!.write(to: fallbackFile)

    let sandbox = AppleAdsSandbox()
    let appleURL = try sandbox.start()
    var settings = HTTPServer.Settings()
    settings.port = 0
    // Purchases are signed by a local chain with Apple's OIDs: this demo server trusts it.
    let signer = try StoreKitSigner(appleNames: false)
    let time = DemoTime()
    let appStoreAPI = AppStoreServerSandbox(clock: { time.now() })
    appStoreAPI.register(appStoreClient)
    let appStoreURL = try appStoreAPI.start()
    defer { appStoreAPI.stop() }
    // Every simulated device calls from 127.0.0.1 and two weeks of installs arrive in seconds:
    // the per-address and per-key token limits would refuse the demo itself (429), so they are
    // off here; the per-profile and admin limits stay at their defaults.
    var serverConfiguration = ServerConfiguration()
    serverConfiguration.http = settings
    serverConfiguration.time = time
    serverConfiguration.logger = Logger(level: .error)
    serverConfiguration.apple = AppleAdsClient(url: appleURL)
    serverConfiguration.attributionInterval = 0.1
    serverConfiguration.campaignManagement = CampaignManagementClient(
      apiURL: campaignURL.appendingPathComponent("api/v5/"), idURL: campaignURL)
    serverConfiguration.spendImportInterval = nil
    serverConfiguration.appStoreServerAPI = AppStoreServerClient(
      productionURL: appStoreURL.appendingPathComponent("production/"),
      sandboxURL: appStoreURL.appendingPathComponent("sandbox/"))
    serverConfiguration.recoveryInterval = nil
    serverConfiguration.appStoreVerifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    serverConfiguration.secrets = secrets
    serverConfiguration.rateLimits.perAddress = "off"
    serverConfiguration.rateLimits.tokensPerKey = "off"
    let server = Server(store: OpenedStore(store), configuration: serverConfiguration)
    let port = try server.start()
    defer {
      server.stop()
      sandbox.stop()
    }
    let base = URL(string: "http://127.0.0.1:\(port)")!
    say(
      "Tollgate demo: server on \(base), Apple Ads stand-in on \(appleURL), placement \"\(placement)\", timeout \(Int(timeout)) s"
    )
    Adapty.logLevel = .error

    func configuration(_ device: String, token: String?, server: URL = base) -> AdaptyConfiguration {
      AdaptyConfiguration.builder(withAPIKey: keys.publicKey)
        .with(backendBaseUrl: server)
        .with(storageDirectory: directory.appendingPathComponent("device-\(device)"))
        .with(attributionTokenProvider: AdaptyStaticAttributionTokenProvider(token))
        .build()
    }

    say("\n1. Device A, first launch; Apple attributes the install to campaign 542370539 after ~1 s")
    try await scenario("A", configuration("A", token: "sbx|delay_ms=1000|campaign=542370539"))

    say("\n2. Device B, first launch; no Apple Ads attribution (organic install)")
    try await scenario("B", configuration("B", token: nil))

    say("\n3. Device A, second launch: the cached profile already has .appleAds")
    try await scenario("A", configuration("A", token: "sbx|delay_ms=1000|campaign=542370539"))

    say("\n4. Device C, first launch with the network down; the app bundles a fallback file")
    let closed = URL(string: "http://127.0.0.1:9")!
    try await scenario("C", configuration("C", token: "sbx|campaign=1", server: closed), fallbackFile: fallbackFile)

    say(
      "\n5. \(installs) installs over the last \(Int(DemoRevenue.spreadDays)) days through the SDK routes (Apple Ads brand and generic campaigns, organic), some buy"
    )
    var revenue = DemoRevenue(base: base, keys: keys, signer: signer, time: time)
    try await revenue.run(installs: installs)
    let report = try await revenue.admin("/v1/admin/stats/placements/onboarding", as: PlacementReport.self)
    say("\n$ tollgate report placement onboarding --app demo\n" + ReportTables.table(report))
    say("\n6. The Apple Ads API key is sealed in the database; spend, names and Apple's installs are imported")
    time.set(behind: 0)
    _ = try AppleAdsSpendService(database: store, secrets: secrets, time: time).saveCredentials(
      appId: keys.app.id, privateKey: adsKey.privatePEM, by: "demo")
    while await server.service.spendImporter.processDue() > 0 {}
    let status = try await revenue.admin("/v1/admin/apple-ads/status", as: AppleAdsStatus.self)
    say(
      "$ tollgate apple-ads status --app demo\nimporter: \(status.importer?.status ?? "none"), \(status.importer?.rowsImported ?? 0) rows imported, last success \(status.importer?.lastSuccessAt ?? "never")\(status.importer?.lastError.map { ", last error: " + $0 } ?? "")"
    )
    // The demo's purchases are signed for the Sandbox store.
    let campaigns = try await revenue.admin(
      "/v1/admin/stats/apple-ads?by=keyword&environment=sandbox", as: AppleAdsReport.self)
    say(
      "\n$ tollgate report apple-ads --app demo --by keyword --environment sandbox\n"
        + ReportTables.appleAdsTable(campaigns))

    try await appStoreStep(
      revenue: revenue, server: server, store: store, secrets: secrets, time: time, apple: appStoreAPI,
      key: appStoreKey, app: keys.app)
    try await importStep(revenue: revenue, server: server, time: time, apple: appStoreAPI)

    while await server.service.webhooks.processDue() > 0 {}
    let events = receiver.events
    let counts = Dictionary(grouping: events, by: \.type).map { "\($0.key) \($0.value.count)" }.sorted()
    say(
      "\nWebhooks delivered to the app's backend at \(receiver.url): \(events.count) events, "
        + "\(events.filter(\.valid).count) with a valid Tollgate-Signature (\(counts.joined(separator: ", ")))")
    if let sample = events.first(where: { $0.type == "subscription_started" }) ?? events.first {
      say("one of them:\n" + sample.body)
    }
    if let keep {
      let state = URL(fileURLWithPath: keep).deletingLastPathComponent().appendingPathComponent("app-store-api.json")
      try JSONEncoder().encode(appStoreAPI.fixture()).write(to: state)
      // What Apple's API answers is signed by the demo's StoreKit chain: serve trusts it only when told.
      let root = state.deletingLastPathComponent().appendingPathComponent("storekit-root.pem")
      try Data(signer.rootPEM.utf8).write(to: root)
      say(
        "\nThe demo's data is kept in \(keep). See it in the console:\n"
          + "  tollgate serve --database \(keep)   then open /dashboard with the secret key\n"
          + "  (Apple's App Store Server API as the demo left it: tollgate-dev app-store-api-sandbox --state \(state.path),\n"
          + "  and serve with --app-store-root-ca \(root.path) and the URLs it prints)\n"
          + "public key: \(keys.publicKey)\nsecret key: \(keys.secretKey)")
    }
  }

  /// The App Store Server API: notifications lost in an outage recovered, a refund request
  /// answered, a customer found by order id, an access level given by hand.
  static func appStoreStep(
    revenue: DemoRevenue, server: Server, store: SQLiteStore, secrets: SecretBox, time: DemoTime,
    apple: AppStoreServerSandbox, key: ECKey, app: AppRecord
  ) async throws {
    let subscribers = revenue.subscribers
    guard subscribers.count >= 4 else {
      say("\n7. (The App Store step needs four paid subscriptions; this run sold \(subscribers.count).)")
      return
    }
    say(
      "\n7. An outage: the server was down while Apple sent two cancellations and a refund, and Apple gave up retrying"
    )
    let now = Int64(time.now().timeIntervalSince1970 * 1000)
    for subscriber in subscribers.prefix(2) {
      let product = subscriber.purchase["productId"] as? String ?? ""
      let renewal: [String: Any] = [
        "originalTransactionId": subscriber.purchase["originalTransactionId"] as? String ?? "",
        "autoRenewProductId": product, "productId": product, "autoRenewStatus": 0, "environment": "Sandbox",
      ]
      let jws = try await revenue.notify(
        "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", transaction: subscriber.purchase,
        extra: ["signedRenewalInfo": renewal], delivered: false)
      apple.keep(jws, signedDate: now)
    }
    var refunded = subscribers[2].purchase
    refunded["revocationDate"] = now
    refunded["revocationReason"] = 0
    refunded["signedDate"] = now
    apple.keep(try await revenue.notify("REFUND", transaction: refunded, delivered: false), signedDate: now)
    let service = AppStoreServerService(database: store, secrets: secrets, time: time)
    _ = try service.saveCredentials(appId: app.id, privateKey: key.privatePEM, by: "demo")
    say(
      "   the In-App Purchase key is sealed; the recovery pages Apple's notification history (Get Notification History)"
    )
    while await server.service.recovery.processDue() > 0 {}
    let status = try service.status(appId: app.id)
    say("$ tollgate app-store status --app demo")
    for recovery in status.recoveries {
      say(
        "notification recovery, \(recovery.environment): recovered \(recovery.recovered), already known \(recovery.alreadyKnown), refused \(recovery.refused)"
      )
    }
    let refundedProfile = try await revenue.admin(
      "/v1/admin/profiles/\(subscribers[2].profile)", as: ProfilePayload.self)
    say(
      "   profile \(subscribers[2].profile): premium \(refundedProfile.accessLevels["premium"]?.isActive == true ? "still active" : "ended by the recovered refund")"
    )

    say("\n8. A customer asks Apple for a refund; Apple asks the app for consumption data (CONSUMPTION_REQUEST)")
    try await revenue.notify(
      "CONSUMPTION_REQUEST", transaction: subscribers[3].purchase,
      extra: ["consumptionRequestReason": "UNINTENDED_PURCHASE"], delivered: true)
    server.service.refundAnswers.waitUntilIdle()
    while await server.service.refundAnswers.processDue() > 0 {}
    if let sent = apple.consumptionAnswers.last {
      let body = try JSONSerialization.data(withJSONObject: sent.body, options: [.sortedKeys])
      say("   answered (app_store.refund_requests: decline, with consent): \(String(decoding: body, as: UTF8.self))")
    }

    say("\n9. Support: a customer quotes the order id on their Apple receipt; another gets premium by hand")
    apple.order("MQ5LTJ8KW2", signedTransactions: [try revenue.signed(subscribers[0].purchase)])
    let ids = subscribers.prefix(2).map { $0.purchase["transactionId"] as? String ?? "" }
    apple.history(try subscribers.prefix(1).map { try revenue.signed($0.purchase) }, for: ids)
    let order = try await revenue.admin("/v1/admin/app-store/orders/MQ5LTJ8KW2", as: AppStoreOrder.self)
    say(
      "$ tollgate app-store order --app demo MQ5LTJ8KW2\n"
        + order.transactions.map {
          "  \($0.transactionId) \($0.productId) — profile \($0.owners.joined(separator: ", "))"
        }
        .joined(separator: "\n"))
    let grant = try await revenue.adminPost(
      "/v1/admin/profiles/\(subscribers[2].profile)/access-levels/premium/grant",
      ["lifetime": true, "reason": "goodwill after a refund"], as: AccessGrantAnswer.self)
    say(
      "$ tollgate access grant \(subscribers[2].profile) premium --lifetime --reason \"goodwill after a refund\"\n   premium \(grant.profile.accessLevels["premium"]?.isActive == true ? "active again" : "inactive") (store \(grant.profile.accessLevels["premium"]?.store ?? ""))"
    )
  }

  /// Customers from before Tollgate: profiles installed in the months before the demo's first
  /// live install, a fifth of them subscribers whose App Store history Apple's API answers.
  static func importStep(revenue: DemoRevenue, server: Server, time: DemoTime, apple: AppStoreServerSandbox)
    async throws
  {
    say("\n10. Customers from before Tollgate: 240 profiles with their install dates, histories fetched from Apple")
    let day: Int64 = 86_400_000
    let now = Int64(time.now().timeIntervalSince1970 * 1000)
    let firstLive = now - Int64(DemoRevenue.spreadDays) * day
    var lines: [String] = []
    for index in 0..<240 {
      let installed = firstLive - Int64(2 + index % 150) * day - Int64(index) * 60_000
      var line: [String: Any] = [
        "customer_user_id": "legacy-\(index)",
        "installed_at": Timestamp.string(Date(timeIntervalSince1970: Double(installed) / 1000)),
        "store_country": ["USA", "DEU", "FRA"][index % 3], "app_version": "3.9.\(index % 4)",
      ]
      if index % 5 == 0 {
        // A monthly subscriber since the day after install, renewed every month until now.
        let original = String(8_000_000_000 + index * 100)
        var signed: [String] = []
        var start = installed + day
        var month = 0
        while start < now {
          let transaction: [String: Any] = [
            "transactionId": month == 0 ? original : String(8_000_000_000 + index * 100 + month),
            "originalTransactionId": original, "bundleId": "com.example.tollgate", "productId": "pro_monthly",
            "purchaseDate": start, "originalPurchaseDate": installed + day, "expiresDate": start + 30 * day,
            "signedDate": start, "type": "Auto-Renewable Subscription", "environment": "Sandbox",
            "transactionReason": month == 0 ? "PURCHASE" : "RENEWAL", "inAppOwnershipType": "PURCHASED",
            "currency": "USD", "price": 9_990,
          ]
          signed.append(try revenue.signer.sign(json: transaction))
          start += 30 * day
          month += 1
        }
        apple.history(signed, for: [original])
        line["transaction_ids"] = [original]
        line["environment"] = "Sandbox"
      }
      lines.append(
        String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
    }
    let summary = try await revenue.importProfiles(lines)
    say(
      "$ tollgate import profiles customers.ndjson --app demo\nimport \(summary.importId): \(summary.lines) lines, \(summary.imported) profiles imported, \(summary.existing) already there, \(summary.refused) refused, \(summary.histories) histories to fetch"
    )
    server.service.historyImporter.waitUntilIdle()
    while await server.service.historyImporter.processDue() > 0 {}
    let status = try await revenue.admin("/v1/admin/history-import", as: HistoryImportStatus.self)
    say(
      "$ tollgate import history --app demo\nApp Store histories: \(status.done) of \(status.customers) customers done, \(status.failed) failed, \(status.pending) pending; \(status.transactions) transactions, \(status.refused) refused"
    )
  }

  private static func scenario(_ name: String, _ configuration: AdaptyConfiguration, fallbackFile: URL? = nil)
    async throws
  {
    let clock = DemoClock()
    let observer = DemoObserver(device: name, clock: clock)
    clock.line(name, "activate")
    let device = try await AdaptyDevice.launch(configuration, fallbackFile: fallbackFile, delegate: observer)
    clock.line(name, "activated")
    let flow = try await device.getFlow(placementId: placement, awaitingAttribution: .appleAds, timeout: timeout)
    let why: String
    switch flow.source {
    case .segmented where flow.placement.audienceName == "All Users":
      why = "server resolved the profile without Apple Ads attribution (waited up to \(Int(timeout)) s)"
    case .segmented: why = "server resolved the Apple Ads audience"
    case .defaultAudience: why = "the segmented answer was late or failed; prefetched default audience"
    case .cache: why = "network failed; cached flow"
    case .fallback: why = "network failed; bundled fallback file"
    }
    clock.line(
      name,
      "flow \"\(flow.id)\" — audience \"\(flow.placement.audienceName)\"\(flow.placement.abTestName.map { ", A/B test \"\($0)\"" } ?? "") — \(why)"
    )
    await device.quit()
  }
}

/// Milliseconds since a scenario started.
final class DemoClock: Sendable {
  private let start = Date()

  func line(_ device: String, _ text: String) {
    let elapsed = String(Int(Date().timeIntervalSince(start) * 1000))
    say("  [\(String(repeating: " ", count: max(0, 5 - elapsed.count)))\(elapsed) ms] device \(device): \(text)")
  }
}

/// Prints each profile the SDK delivers.
final class DemoObserver: AdaptyDelegate {
  let device: String
  let clock: DemoClock

  init(device: String, clock: DemoClock) {
    self.device = device
    self.clock = clock
  }

  func didLoadLatestProfile(_ profile: AdaptyProfile) {
    let sources = profile.appliedExternalAttributionProviders.map(\.rawValue)
    clock.line(device, "profile v\(profile.version) delivered, applied sources \(sources)")
  }
}
