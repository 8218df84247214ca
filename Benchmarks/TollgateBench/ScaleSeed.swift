import Foundation
import TollgateAPI
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `make bench-scale`'s data set: an app with `profiles` profiles on PostgreSQL, loaded with
/// `COPY … FROM STDIN` through `psql` (rows rendered by the store's own `BulkRows`): installs
/// spread over two years, a fifth attributed to Apple Ads (two thirds of those in the "aa"
/// audience, with stored assignments for three placements), and one in fifty with an active
/// monthly subscription (transaction, owner link and the purchases the live path derives).
/// Indexes are dropped for the load and built after it, as a bulk load into PostgreSQL is done.
enum ScaleSeed {
  static let subscriberEvery = 50
  static let assignedPlacements = 3

  static func run(database: String, profiles: Int, out: URL, webhookURL: String) throws {
    guard database.hasPrefix("postgres") else { throw StoreError.database("scale-seed loads PostgreSQL only") }
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    let store = try StoreLocation.open(database, connections: 2).database
    let keys = try KeyIssuer(apps: store).issue(appName: "scale-\(UUID().uuidString.prefix(6).lowercased())")
    let compiled = try ConfigImporter(database: store).apply(Data(Seed.config().utf8), appId: keys.app.id)
    store.close()
    // The configuration the fleet is given through the admin API once it runs: the seeded one
    // plus the App Store, an access level and a webhook to the local receiver.
    var document = try JSONSerialization.jsonObject(with: Data(Seed.config().utf8)) as? [String: Any] ?? [:]
    document["app_store"] = ["bundle_id": ScaleIds.bundleId, "environments": ["Production", "Sandbox"]]
    document["access_levels"] = [["id": "premium", "products": (0..<20).flatMap { ["p\($0)_m", "p\($0)_y"] }]]
    document["webhooks"] = [["id": "backend", "url": webhookURL, "events": ["*"]]]
    try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
      .write(to: out.appendingPathComponent("config.json"))
    let signer = try StoreKitSigner(appleNames: false)
    try signer.save(to: out.appendingPathComponent("storekit"))
    try Data(
      """
      BENCH_KEY=\(keys.publicKey)
      BENCH_ADMIN_KEY=\(keys.secretKey)
      BENCH_APP=\(keys.app.name)
      BENCH_APP_ID=\(keys.app.id)

      """.utf8
    ).write(to: out.appendingPathComponent("scale.env"))

    let psql = Psql(url: database)
    let now = Date()
    var timings: [String] = []
    func timed(_ label: String, _ body: () throws -> Int) throws {
      let start = ContinuousClock.now
      let rows = try body()
      let seconds = (ContinuousClock.now - start).seconds
      timings.append("\(label) \(rows) rows in \(String(format: "%.1f", seconds)) s")
    }
    let levels =
      compiled.accessLevels.isEmpty
      ? [AccessLevelDefinition(id: "premium", products: Set((0..<20).flatMap { ["p\($0)_m", "p\($0)_y"] }))]
      : compiled.accessLevels
    try timed("profiles") {
      try psql.copy(table: "profiles", columns: BulkRows.profileColumns) { write in
        var templates = ProfileTemplates(appId: keys.app.id, now: now)
        for index in 0..<profiles {
          let seed = ScaleIds.mix(UInt64(index))
          let created = now.addingTimeInterval(-Double(seed % (730 * 86_400)))
          if index % subscriberEvery == 7 {
            var record = ScaleIds.record(index: index, seed: seed, created: created, now: now)
            record.purchases = PurchaseDerivation.derive(
              PurchaseHistory(transactions: [try ScaleIds.subscription(index: index, now: now)]), levels: levels,
              now: now)
            write(BulkRows.profileLine(appId: keys.app.id, record))
          } else {
            write(templates.line(index: index, seed: seed, created: created))
          }
        }
      }
      return profiles
    }
    try timed("assignments") {
      var rows = 0
      try psql.copy(table: "assignments", columns: BulkRows.assignmentColumns) { write in
        for index in 0..<profiles {
          let seed = ScaleIds.mix(UInt64(index))
          guard let campaign = ScaleIds.campaign(seed), campaign != 104 else { continue }
          let id = ScaleIds.profile(index)
          for placement in 0..<assignedPlacements {
            // Seed.config: placement p, audience "aa" (offset 0) tests f(p) against f(p + 7).
            let flow = (seed >> 40) % 2 == 0 ? placement : (placement + 7) % 20
            write(
              BulkRows.assignmentLine(
                appId: keys.app.id, profileId: id, placementId: "p\(placement)", audienceId: "aa",
                variationId: "p\(placement):aa:f\(flow)", at: now))
            rows += 1
          }
        }
      }
      return rows
    }
    try timed("transactions") {
      try psql.copy(table: "app_store_transactions", columns: BulkRows.transactionColumns) { write in
        for index in stride(from: 7, to: profiles, by: subscriberEvery) {
          let payload = try ScaleIds.subscription(index: index, now: now)
          let credit = PurchaseAttribution(
            placementId: "p0", audienceId: "", variationId: "p0::f0", profileId: ScaleIds.profile(index))
          write(
            BulkRows.transactionLine(
              appId: keys.app.id, StoredTransaction(payload: payload, jws: "bench-scale"), credit: credit))
        }
      }
      try psql.copy(table: "app_store_owners", columns: BulkRows.ownerColumns) { write in
        for index in stride(from: 7, to: profiles, by: subscriberEvery) {
          write(
            BulkRows.ownerLine(
              appId: keys.app.id, original: ScaleIds.originalTransaction(index), profileId: ScaleIds.profile(index)))
        }
      }
      return (profiles - 7 + subscriberEvery - 1) / subscriberEvery
    }
    try timed("analyze") {
      try psql.run("ANALYZE")
      return 0
    }
    emit("seeded \(profiles) profiles for app \(keys.app.name) by COPY: " + timings.joined(separator: "; "))
  }
}

/// The profile lines of the ordinary (non-subscriber) profiles, from one encoded template per
/// combination of attribute values: only the id and the times differ from row to row, so ten
/// million rows do not need thirty million JSON encodings.
struct ProfileTemplates {
  let appId: Int64
  let now: Date
  private var cache: [UInt64: [Substring]] = [:]
  private let idField: Int
  private let createdField: Int
  private let updatedField: Int

  init(appId: Int64, now: Date) {
    self.appId = appId
    self.now = now
    let columns = BulkRows.profileColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    idField = columns.firstIndex(of: "id") ?? 1
    createdField = columns.firstIndex(of: "created_at") ?? 7
    updatedField = columns.firstIndex(of: "updated_at") ?? 8
  }

  mutating func line(index: Int, seed: UInt64, created: Date) -> String {
    let key = ScaleIds.templateKey(seed)
    let fields: [Substring]
    if let cached = cache[key] {
      fields = cached
    } else {
      let record = ScaleIds.record(index: index, seed: seed, created: now, now: now)
      let line = BulkRows.profileLine(appId: appId, record)
      fields = line.dropLast().split(separator: "\t", omittingEmptySubsequences: false)
      cache[key] = fields
    }
    var out = ""
    out.reserveCapacity(400)
    let time = "\(created.timeIntervalSince1970)"
    for (position, field) in fields.enumerated() {
      if position > 0 { out += "\t" }
      switch position {
      case idField: out += ScaleIds.profile(index)
      case createdField, updatedField: out += time
      default: out += field
      }
    }
    return out + "\n"
  }
}

/// The scale data set's facts as functions of a profile's index, so the day's replay
/// (`ScaleDay`) addresses seeded profiles without a list of ten million ids.
enum ScaleIds {
  static let bundleId = "com.example.tollgate"

  /// splitmix64's finaliser: a bijection, so distinct indexes give distinct ids.
  static func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A version-4 UUID whose first 64 bits are `mix(index)`.
  static func profile(_ index: Int) -> String {
    let high = mix(UInt64(index))
    let low = mix(high)
    let hex = String(high, radix: 16).leftPadded(16) + String(low, radix: 16).leftPadded(16)
    let chars = Array(hex)
    let version = "4" + String(chars[13..<16])
    let variant = String("89ab"[String.Index(utf16Offset: Int(low >> 62), in: "89ab")]) + String(chars[17..<20])
    return "\(String(chars[0..<8]))-\(String(chars[8..<12]))-\(version)-\(variant)-\(String(chars[20..<32]))"
  }

  /// The Apple Ads campaign of an attributed profile (a fifth of them), nil for organic ones.
  static func campaign(_ seed: UInt64) -> Int64? {
    seed % 5 == 0 ? [101, 102, 104][Int((seed >> 8) % 3)] : nil
  }

  static let appVersions = ["2.4.1", "3.0.0", "3.1.2"]
  static let locales = ["en-US", "fr-FR"]

  /// The combination of attribute values a seed gives (what `record` reads of it).
  static func templateKey(_ seed: UInt64) -> UInt64 {
    let campaign = campaign(seed).map { UInt64($0) } ?? 0
    return (seed >> 16) % 3 | ((seed >> 18) % 2) << 2 | ((seed >> 20) % 6) << 3 | ((seed >> 24) % 10) << 6
      | ((seed >> 28) % 4 == 0 ? 1 : 0) << 10 | campaign << 11
  }

  static func record(index: Int, seed: UInt64, created: Date, now: Date) -> ProfileRecord {
    var record = ProfileRecord(
      id: profile(index),
      install: InstallMeta(
        appVersion: appVersions[Int((seed >> 16) % 3)], osVersion: "17.5", deviceModel: "iPhone15,2",
        locale: locales[Int((seed >> 18) % 2)], storeCountry: Seed.countries[Int((seed >> 20) % 6)]),
      customAttributes: [
        "level": .int(Int64((seed >> 24) % 10)), "plan": .string((seed >> 28) % 4 == 0 ? "gold" : "free"),
      ],
      createdAt: created, updatedAt: created)
    if let campaign = campaign(seed) {
      record.appliedSources = ["apple_ads"]
      record.attribution.status = ["apple_ads": .applied]
      record.attribution.appleAds = AppleAdsRecord(
        payload: AppleAdsPayload(attribution: true, orgId: 1, campaignId: campaign), test: false, clickDate: nil,
        resolvedAt: now)
    }
    return record
  }

  static func originalTransaction(_ index: Int) -> String { String(3_000_000_000 + index) }

  /// The subscriber's current month of `p0_m`, bought within the last 30 days, as the App Store
  /// signs it (`json`) and as decoded.
  static func subscriptionJSON(index: Int, now: Date) -> [String: Any] {
    let purchased = Int64(now.timeIntervalSince1970 * 1000) - Int64(mix(UInt64(index)) % (29 * 86_400_000))
    return [
      "transactionId": originalTransaction(index), "originalTransactionId": originalTransaction(index),
      "bundleId": bundleId, "productId": "p0_m", "purchaseDate": purchased, "originalPurchaseDate": purchased,
      "signedDate": purchased, "expiresDate": purchased + 30 * 86_400_000, "type": TransactionPayload.autoRenewable,
      "appAccountToken": profile(index), "environment": "Production", "transactionReason": "PURCHASE",
      "inAppOwnershipType": "PURCHASED", "price": 9_990, "currency": "USD",
    ]
  }

  static func subscription(index: Int, now: Date) throws -> TransactionPayload {
    try JSONDecoder().decode(
      TransactionPayload.self, from: JSONSerialization.data(withJSONObject: subscriptionJSON(index: index, now: now)))
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

extension Duration {
  /// The duration in seconds, as a `Double`.
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// `psql` as a child process: plain statements, and `COPY … FROM STDIN` fed through a pipe in
/// 1 MiB writes.
struct Psql {
  let url: String

  func run(_ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
    process.arguments = [url, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw StoreError.database("psql failed: \(sql)") }
  }

  func query(_ sql: String) throws -> [String] {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
    process.arguments = [url, "-v", "ON_ERROR_STOP=1", "-At", "-F", "\t", "-c", sql]
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw StoreError.database("psql failed: \(sql)") }
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
  }

  /// Drops the table's indexes (its primary key included), copies the rows `produce` writes,
  /// then builds the indexes again.
  func copy(table: String, columns: String, _ produce: ((String) -> Void) throws -> Void) throws {
    let primary = try query(
      "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = '\(table)'::regclass AND contype = 'p'"
    ).map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
    let indexes = try query(
      """
      SELECT indexname, indexdef FROM pg_indexes WHERE tablename = '\(table)'
      AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = '\(table)'::regclass)
      """
    ).map { $0.split(separator: "\t", maxSplits: 1).map(String.init) }
    for index in indexes { try run("DROP INDEX \(index[0])") }
    for constraint in primary { try run("ALTER TABLE \(table) DROP CONSTRAINT \(constraint[0])") }

    let process = Process()
    let input = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
    process.arguments = [url, "-v", "ON_ERROR_STOP=1", "-q", "-c", "COPY \(table) (\(columns)) FROM STDIN"]
    process.standardInput = input
    try process.run()
    var buffer = Data()
    buffer.reserveCapacity(1 << 21)
    let handle = input.fileHandleForWriting
    try produce { line in
      buffer.append(contentsOf: line.utf8)
      if buffer.count >= 1 << 20 {
        handle.write(buffer)
        buffer.removeAll(keepingCapacity: true)
      }
    }
    handle.write(buffer)
    try handle.close()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw StoreError.database("COPY \(table) failed") }

    let building = "SET maintenance_work_mem = '1GB'; "
    for constraint in primary {
      try run(building + "ALTER TABLE \(table) ADD CONSTRAINT \(constraint[0]) \(constraint[1])")
    }
    for index in indexes { try run(building + index[1]) }
  }
}
