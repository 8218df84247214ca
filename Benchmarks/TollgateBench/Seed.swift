import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// Creates the benchmark app: 10 placements × 5 audiences (rules on attribution, country,
/// app version and custom attributes) with A/B tests, and `profiles` profiles with varied
/// attributes, written in batches. With `listEntries`, a saved list of that many customer
/// user ids (`user-0`, `user-2`, … — every other profile's id is in it) is stored, and every
/// placement's first target is an audience reading it with `$inGroup`.
enum Seed {
  static let countries = ["USA", "FRA", "DEU", "GBR", "JPN", "BRA"]

  static func config(list: Bool = false) -> String {
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
    let ids = (list ? ["listed"] : []) + ["aa", "eu", "new_app", "engaged", "gold"]
    let listed = list ? [#"{"id":"listed","rule":{"customer_user_id":{"$inGroup":"members"}}}"#] : []
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
      #"{"flows":[\#(flows.joined(separator: ","))],"audiences":[\#((listed + audiences).joined(separator: ","))],"placements":[\#(placements.joined(separator: ","))]}"#
  }

  static func run(database: String, profiles: Int, out: URL, listEntries: Int = 0) throws {
    let store = try StoreLocation.open(database, connections: 2).database
    defer { store.close() }
    let keys = try KeyIssuer(apps: store).issue(appName: "bench-\(UUID().uuidString.prefix(6))")
    if listEntries > 0 {
      let members = try SavedListValues.make((0..<listEntries).map { "user-\($0 * 2)" }) { "$[\($0)]" }.get()
      _ = try SavedListService(database: store).put(appId: keys.app.id, id: "members", values: members, by: "bench")
    }
    _ = try ConfigImporter(database: store).apply(Data(config(list: listEntries > 0).utf8), appId: keys.app.id)
    var generator = SystemRandomNumberGenerator()
    var ids: [String] = []
    ids.reserveCapacity(profiles)
    // The profiles no Apple Ads token was applied to: the attribution run sends each one token.
    var unattributed: [String] = []
    let now = Date()
    var batch: [ProfileRecord] = []
    for index in 0..<profiles {
      let id = UUID().uuidString.lowercased()
      ids.append(id)
      var record = ProfileRecord(
        id: id, customerUserId: listEntries > 0 ? "user-\(index)" : nil,
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
      } else {
        unattributed.append(id)
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
    try Data((unattributed.joined(separator: "\n") + "\n").utf8).write(
      to: out.appendingPathComponent("unattributed.txt"))
    try Data("BENCH_KEY=\(keys.publicKey)\n".utf8).write(to: out.appendingPathComponent("keys.env"))
    emit("seeded \(profiles) profiles for app \(keys.app.name)")
  }
}
