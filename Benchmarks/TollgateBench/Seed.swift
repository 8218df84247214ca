import Foundation
import TollgateAPI
import TollgateServer

/// Creates the benchmark app: 10 placements × 5 audiences (rules on attribution, country,
/// app version and custom attributes) with A/B tests, and `profiles` profiles with varied
/// attributes, written in batches.
enum Seed {
  static let countries = ["USA", "FRA", "DEU", "GBR", "JPN", "BRA"]

  static func config() -> String {
    let flows = (0..<20).map { index in
      #"{"id":"f\#(index)","name":"Flow \#(index)","products":["p\#(index)_m","p\#(index)_y"],"remote_config":{"en":{"title":"Flow \#(index)","cta":"Start"},"fr":{"title":"Flux \#(index)","cta":"Commencer"}}}"#
    }
    let audiences = [
      #"{"id":"aa","rule":{"attribution.sources":"apple_ads","attribution.apple_ads.campaign_id":{"$in":[101,102,103]}}}"#,
      #"{"id":"eu","rule":{"store_country":{"$in":["FRA","DEU"]}}}"#,
      #"{"id":"new_app","rule":{"app.version":{"$semver_gte":"3.0.0"}}}"#,
      #"{"id":"engaged","rule":{"custom.level":{"$gte":5}}}"#,
      #"{"id":"gold","rule":{"$and":[{"custom.plan":"gold"},{"locale":{"$regex":"^en"}}]}}"#,
    ]
    let ids = ["aa", "eu", "new_app", "engaged", "gold"]
    let placements = (0..<10).map { placement in
      let targets = ids.enumerated().map { offset, audience in
        let a = (placement + offset) % 20
        let b = (placement + offset + 7) % 20
        return
          #"{"audience":"\#(audience)","experiment":{"name":"test \#(placement)-\#(audience)","variations":[{"flow":"f\#(a)","weight":50},{"flow":"f\#(b)","weight":50}]}}"#
      }
      return #"{"id":"p\#(placement)","targets":[\#(targets.joined(separator: ","))],"default":"f\#(placement)"}"#
    }
    return
      #"{"flows":[\#(flows.joined(separator: ","))],"audiences":[\#(audiences.joined(separator: ","))],"placements":[\#(placements.joined(separator: ","))]}"#
  }

  static func run(database: String, profiles: Int, out: URL) throws {
    let store = try StoreLocation.open(database, connections: 2)
    defer { store.close() }
    let keys = try KeyIssuer(store: store).issue(appName: "bench-\(UUID().uuidString.prefix(6))")
    _ = try ConfigImporter(store: store).apply(Data(config().utf8), appId: keys.app.id)
    var generator = SystemRandomNumberGenerator()
    var ids: [String] = []
    ids.reserveCapacity(profiles)
    let now = Date()
    var batch: [ProfileRecord] = []
    for index in 0..<profiles {
      let id = UUID().uuidString.lowercased()
      ids.append(id)
      var record = ProfileRecord(
        id: id,
        install: InstallMeta(
          appVersion: ["2.4.1", "3.0.0", "3.1.2"][index % 3], osVersion: "17.5", deviceModel: "iPhone15,2",
          locale: index % 2 == 0 ? "en-US" : "fr-FR", storeCountry: countries[index % countries.count]),
        customAttributes: [
          "level": .int(Int64.random(in: 0...9, using: &generator)),
          "plan": .string(index % 4 == 0 ? "gold" : "free"),
        ],
        createdAt: now, updatedAt: now)
      if index % 5 == 0 {
        record.appliedSources = ["apple_ads"]
        record.attribution.status = ["apple_ads": .applied]
        record.attribution.appleAds = AppleAdsRecord(
          payload: AppleAdsPayload(attribution: true, orgId: 1, campaignId: [101, 102, 104][index % 3]),
          test: false, clickDate: nil, resolvedAt: now)
      }
      batch.append(record)
      if batch.count == 5_000 {
        _ = try store.importProfiles(appId: keys.app.id, batch)
        batch.removeAll(keepingCapacity: true)
      }
    }
    _ = try store.importProfiles(appId: keys.app.id, batch)
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    try Data((ids.joined(separator: "\n") + "\n").utf8).write(to: out.appendingPathComponent("ids.txt"))
    try Data("BENCH_KEY=\(keys.publicKey)\n".utf8).write(to: out.appendingPathComponent("keys.env"))
    emit("seeded \(profiles) profiles for app \(keys.app.name)")
  }
}
