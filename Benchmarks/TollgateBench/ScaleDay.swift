import Foundation
import TollgateDevTools

/// One day of an app with `dailyUsers` daily users, as the requests its devices and the App
/// Store send, sampled one in `sample` and written for `Benchmarks/scripts/day.lua` (one file
/// per load thread, one request a line: route, method, path, body, client address).
///
/// The day, per million daily users (the model the extrapolation in `make bench-scale`'s
/// report multiplies out):
/// - 40 000 first launches (4 %), half with an Apple Ads token: profile creation carrying the
///   token, the default audience's flow (prefetched), the segmented flow, one event batch;
/// - 2 500 000 returning launches (2.5 a user) by profiles of the seeded set: the profile
///   (the SDK's activation), one placement read and half the time a second, an event batch
///   (impressions) 40 % of the time;
/// - 3 000 purchases (0.3 %) by returning users, signed like the App Store's transactions;
/// - the day's renewals of the seeded monthly subscribers (a thirtieth of them), as App Store
///   Server Notifications (`DID_RENEW`), each signed;
/// every purchase and renewal also makes webhook deliveries, which the fleet's workers send.
enum ScaleDay {
  struct Mix {
    var firstLaunches = 0
    var returningLaunches = 0
    var purchases = 0
    var renewals = 0
    var requests: [String: Int] = [:]
  }

  static func run(
    profiles: Int, dailyUsers: Int, sample: Int, threads: Int, app: String, out: URL, storeKit: URL
  ) throws {
    let signer = try StoreKitSigner(directory: storeKit)
    var random = SeededGenerator(seed: 20_261_201)
    let scale = Double(dailyUsers) / 1_000_000 / Double(sample)
    let firstLaunches = Int(40_000 * scale)
    let returning = Int(2_500_000 * scale)
    let purchases = Int(3_000 * scale)
    let subscribers = (profiles - 7 + ScaleSeed.subscriberEvery - 1) / ScaleSeed.subscriberEvery
    let renewals = Int(Double(subscribers) / 30 / Double(sample))
    let now = Date()
    let nowMilliseconds = Int64(now.timeIntervalSince1970 * 1000)
    // Every request gets a place in the day; a launch's requests follow each other a few
    // thousand places apart (about a second of the replay), so a profile exists before its flow is read whatever the
    // concurrency of the replay.
    var day: [(place: Double, line: String)] = []
    var mix = Mix()
    let span = Double(firstLaunches * 4 + returning * 3 + purchases + renewals)
    let gap = 3_000.0
    func add(_ place: Double, _ route: String, _ method: String, _ path: String, _ body: String, _ client: String) {
      day.append((place, "\(route)\t\(method)\t\(path)\t\(body)\t\(client)"))
      mix.requests[route, default: 0] += 1
    }
    func client(_ value: UInt64) -> String {
      "10.\((value >> 16) & 0xFF).\((value >> 8) & 0xFF).\(value & 0xFF | 1)"
    }
    for launch in 0..<firstLaunches {
      let place = Double.random(in: 0..<span, using: &random)
      let id = UUID().uuidString.lowercased()
      let address = client(ScaleIds.mix(UInt64(launch) | 1 << 40))
      let token =
        launch % 2 == 0
        ? #","apple_ads_token":"sbx|campaign=\#([101, 102, 104][launch % 3])|ad_group=1|keyword=\#(launch % 20)""# : ""
      let placement = "p\(launch % 10)"
      add(
        place, "create profile", "POST", "/v1/sdk/profiles",
        #"{"profile_id":"\#(id)","install":{"app_version":"3.1.2","locale":"en-US","store_country":"USA"}\#(token)}"#,
        address)
      add(place + gap, "default audience", "GET", "/v1/sdk/placements/\(placement)/default", "", address)
      add(
        place + 2 * gap, "placement flow", "GET", "/v1/sdk/placements/\(placement)/flow?profile_id=\(id)", "", address)
      add(place + 3 * gap, "events", "POST", "/v1/sdk/events", impression(id, placement), address)
      mix.firstLaunches += 1
    }
    for launch in 0..<returning {
      let place = Double.random(in: 0..<span, using: &random)
      let index = dailyUser(profiles: profiles, dailyUsers: dailyUsers, random: &random)
      let id = ScaleIds.profile(index)
      let address = client(ScaleIds.mix(UInt64(index)))
      let placement = "p\(launch % 10)"
      add(place, "profile", "GET", "/v1/sdk/profiles/\(id)", "", address)
      add(place + gap, "placement flow", "GET", "/v1/sdk/placements/\(placement)/flow?profile_id=\(id)", "", address)
      if launch % 2 == 0 {
        let second = "p\((launch / 2 + 3) % 10)"
        add(place + 2 * gap, "placement flow", "GET", "/v1/sdk/placements/\(second)/flow?profile_id=\(id)", "", address)
      }
      if launch % 5 < 2 { add(place + 3 * gap, "events", "POST", "/v1/sdk/events", impression(id, placement), address) }
      mix.returningLaunches += 1
    }
    for purchase in 0..<purchases {
      let place = Double.random(in: 0..<span, using: &random)
      let index = dailyUser(profiles: profiles, dailyUsers: dailyUsers, random: &random)
      let id = ScaleIds.profile(index)
      let transaction = String(5_000_000_000 + purchase)
      let json: [String: Any] = [
        "transactionId": transaction, "originalTransactionId": transaction, "bundleId": ScaleIds.bundleId,
        "productId": "p\(purchase % 10)_y", "purchaseDate": nowMilliseconds, "originalPurchaseDate": nowMilliseconds,
        "expiresDate": nowMilliseconds + 365 * 86_400_000, "type": "Auto-Renewable Subscription",
        "appAccountToken": id, "environment": "Production", "transactionReason": "PURCHASE",
        "inAppOwnershipType": "PURCHASED", "price": 59_990, "currency": "USD",
      ]
      let body = #"{"signed_transaction":"\#(try signer.sign(json: json, now: now))","variation_id":"p0:default:f0"}"#
      add(
        place, "transaction", "POST", "/v1/sdk/profiles/\(id)/transactions", body, client(ScaleIds.mix(UInt64(index))))
      mix.purchases += 1
    }
    for renewal in 0..<renewals {
      let place = Double.random(in: 0..<span, using: &random)
      let index = 7 + ScaleSeed.subscriberEvery * Int.random(in: 0..<subscribers, using: &random)
      var transaction = ScaleIds.subscriptionJSON(index: index, now: now)
      let purchased = transaction["expiresDate"] as? Int64 ?? nowMilliseconds
      transaction["transactionId"] = String(6_000_000_000 + renewal)
      transaction["purchaseDate"] = purchased
      transaction["signedDate"] = purchased
      transaction["expiresDate"] = purchased + 30 * 86_400_000
      transaction["transactionReason"] = "RENEWAL"
      let notification: [String: Any] = [
        "notificationType": "DID_RENEW", "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0",
        "data": ["bundleId": ScaleIds.bundleId, "environment": "Production", "signedTransactionInfo": transaction],
      ]
      let body = #"{"signedPayload":"\#(try signer.sign(json: notification, now: now))"}"#
      add(place, "app store notification", "POST", "/v1/app-store/notifications/\(app)", body, "17.0.0.1")
      mix.renewals += 1
    }
    day.sort { $0.place < $1.place }
    try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
    var files = Array(repeating: "", count: threads)
    for (position, entry) in day.enumerated() { files[position % threads] += entry.line + "\n" }
    for (thread, text) in files.enumerated() {
      try Data(text.utf8).write(to: out.appendingPathComponent("day-\(thread + 1).tsv"))
    }
    var summary = [
      "sample=\(sample)", "daily_users=\(dailyUsers)", "first_launches=\(mix.firstLaunches)",
      "returning_launches=\(mix.returningLaunches)", "purchases=\(mix.purchases)", "renewals=\(mix.renewals)",
      "requests=\(day.count)",
    ]
    for (route, count) in mix.requests.sorted(by: { $0.key < $1.key }) {
      summary.append("route.\(route.replacingOccurrences(of: " ", with: "_"))=\(count)")
    }
    try Data((summary.joined(separator: "\n") + "\n").utf8).write(to: out.appendingPathComponent("mix.env"))
    emit("a 1/\(sample) sample of one day of \(dailyUsers) daily users: \(day.count) requests in \(threads) files")
  }

  /// A profile of the day's users: a tenth of the seeded profiles use the app on a given day.
  static func dailyUser(profiles: Int, dailyUsers: Int, random: inout SeededGenerator) -> Int {
    let pool = min(profiles, dailyUsers)
    let stride = max(1, profiles / max(pool, 1))
    return Int.random(in: 0..<pool, using: &random) * stride
  }

  static func impression(_ profile: String, _ placement: String) -> String {
    #"{"events":[{"event_id":"\#(UUID().uuidString.lowercased())","type":"flow_shown","profile_id":"\#(profile)","placement_id":"\#(placement)","variation_id":"\#(placement):default:f\#(placement.dropFirst())"}]}"#
  }
}
