import Foundation
import TollgateAPI
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// Moving an app onto Tollgate at scale: `profiles` NDJSON lines through the import's own path
/// (parsed, checked, stored in batches with their install cohorts; a fifth with Apple Ads
/// attribution), `histories` of them with transaction ids whose App Store histories a stand-in
/// of Apple answers at once (three transactions each: a purchase and two renewals), fetched and
/// recorded by the server's history importer. Prints profiles/s, transactions/s, peak RSS, and
/// whether the rollups equal a rebuild from the raw rows afterwards. `lanes` batches of
/// profiles are stored at once (the server's default is two).
enum ImportAtScale {
  static func run(database: String, profiles: Int, histories: Int, lanes: Int) async throws {
    let store = try StoreLocation.open(database, connections: 4).database
    defer { store.close() }
    let app = try KeyIssuer(apps: store).issue(appName: "import-\(UUID().uuidString.prefix(6))").app
    let secrets = try SecretBox(key: Digest.randomBytes(32))
    let signer = try StoreKitSigner(appleNames: false)
    let key = try ECKey.generateP256()
    let client = AppStoreServerSandbox.Client(
      issuerId: "57246542-96fe-1a63-e053-0824d011072a", keyId: "2X9R4HXF34", bundleId: "com.example.tollgate",
      publicKeyPEM: key.publicPEM)
    var document =
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "examples/sample-config.json")))
      as! [String: Any]
    document["app_store"] = [
      "bundle_id": client.bundleId, "environments": ["Production"],
      "server_api": ["issuer_id": client.issuerId, "key_id": client.keyId],
    ]
    _ = try ConfigImporter(database: store, secrets: secrets).applyReturningSecrets(
      JSONSerialization.data(withJSONObject: document), appId: app.id)
    _ = try AppStoreServerService(database: store, secrets: secrets, time: SystemTimeSource()).saveCredentials(
      appId: app.id, privateKey: key.privatePEM, by: "bench")

    // Apple's side: each customer with history has a purchase and two monthly renewals.
    let apple = AppStoreServerSandbox(pageSize: 20)
    apple.register(client)
    let url = try apple.start()
    defer { apple.stop() }
    let now = Date()
    let day: Int64 = 86_400_000
    let signing = Date()
    for index in 0..<histories {
      let installed = Int64(now.timeIntervalSince1970 * 1000) - Int64(100 + index % 600) * day
      let original = String(7_000_000_000 + index * 10)
      var signed: [String] = []
      for month in 0..<3 {
        let start = installed + day + Int64(month) * 30 * day
        let transaction: [String: Any] = [
          "transactionId": month == 0 ? original : String(7_000_000_000 + index * 10 + month),
          "originalTransactionId": original, "bundleId": client.bundleId, "productId": "pro_monthly",
          "purchaseDate": start, "expiresDate": start + 30 * day, "type": TransactionPayload.autoRenewable,
          "signedDate": start, "environment": "Production", "transactionReason": month == 0 ? "PURCHASE" : "RENEWAL",
          "inAppOwnershipType": "PURCHASED", "price": 9_990, "currency": "USD", "storefront": "USA",
        ]
        signed.append(try signer.sign(json: transaction))
      }
      apple.history(signed, for: [original])
    }
    let signingSeconds = Date().timeIntervalSince(signing)

    var configuration = ServerConfiguration()
    configuration.http.port = 0
    configuration.logger = Logger(level: .error)
    configuration.secrets = secrets
    configuration.appStoreVerifier = try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8))
    configuration.appStoreServerAPI = AppStoreServerClient(
      productionURL: url.appendingPathComponent("production/"), sandboxURL: url.appendingPathComponent("sandbox/"))
    configuration.recoveryInterval = nil
    configuration.attributionInterval = nil
    configuration.webhookInterval = nil
    configuration.spendImportInterval = nil
    let server = Server(store: OpenedStore(store), configuration: configuration)
    _ = try server.start()
    defer { server.stop() }

    // The profiles as a file on disk, then read and imported as `tollgate import profiles` does.
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).ndjson")
    defer { try? FileManager.default.removeItem(at: file) }
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let output = try FileHandle(forWritingTo: file)
    let formatter = Date.ISO8601FormatStyle()
    var text = ""
    for index in 0..<profiles {
      let installed = now.addingTimeInterval(-Double(100 + index % 600) * 86_400)
      text +=
        #"{"customer_user_id":"customer-\#(index)","installed_at":"\#(formatter.format(installed))","store_country":"USA","app_version":"4.2.0""#
      if index % 5 == 1 {
        text += #","apple_ads":{"campaign_id":542370539,"ad_group_id":542370540,"keyword_id":\#(700_000 + index % 50)}"#
      }
      if index < histories { text += #","transaction_ids":["\#(7_000_000_000 + index * 10)"]"# }
      text += "}\n"
      if text.utf8.count > 1 << 20 {
        try output.write(contentsOf: Data(text.utf8))
        text = ""
      }
    }
    try output.write(contentsOf: Data(text.utf8))
    try output.close()

    let imports = ProfileImportService(imports: store, apps: store, time: SystemTimeSource(), lanes: lanes)
    let importing = Date()
    let session = try imports.begin(appId: app.id, source: "ndjson", by: "bench")
    let input = try FileHandle(forReadingFrom: file)
    while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
      [UInt8](chunk).withUnsafeBufferPointer { session.feed(chunk: $0) }
    }
    try input.close()
    let summary = try session.finish()
    let importSeconds = Date().timeIntervalSince(importing)
    let importRSS = peakRSSMegabytes()

    // Their histories, fetched and recorded by the server's importer as the server runs it:
    // passes on Dispatch threads of their own (on Swift's cooperative pool, two threads here,
    // a lane waiting for the write lock held up the other lane's requests).
    let fetching = Date()
    let importer = server.service.historyImporter
    importer.kick()
    importer.waitUntilIdle(timeout: 24 * 3_600)
    let fetchSeconds = Date().timeIntervalSince(fetching)
    let progress = try server.service.historyImporter.progress(appId: app.id)

    let live = try store.rollupSnapshot(appId: app.id)
    try store.rebuildRollups(appId: app.id)
    let rebuilt = try store.rollupSnapshot(appId: app.id)
    print(
      String(
        format:
          "%d profiles imported in %.1f s (%.0f profiles/s, %d lanes; %d refused), peak RSS %d MB; %d customers' histories (%d transactions, %d failed) fetched from a stand-in of Apple and recorded in %.1f s (%.0f transactions/s; signing them for the stand-in took %.0f s); rollups %@ a rebuild (%d rows)",
        summary.imported, importSeconds, Double(summary.imported) / importSeconds, lanes, summary.refused, importRSS,
        progress.done, progress.transactions, progress.failed, fetchSeconds,
        Double(progress.transactions) / max(fetchSeconds, 0.001), signingSeconds,
        live == rebuilt ? "equal" : "DIFFER FROM", rebuilt.count))
  }

  static func peakRSSMegabytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      return (Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
    return 0
  }
}
