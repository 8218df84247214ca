import Foundation
import TollgateAPI
import TollgateCommandLine
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The revenue part of `tollgate demo`: simulated installs (Apple Ads and organic) go through
/// the real SDK routes — profile, attribution token, flow, events — and some buy, with
/// transactions signed like the App Store's; then the reports show what each paywall and
/// each campaign earned.
struct DemoRevenue {
  let base: URL
  let keys: KeyIssuer.IssuedKeys
  let signer: StoreKitSigner
  /// The server's clock: installs are spread over the last `spreadDays` days of it.
  let time: DemoTime
  static let spreadDays: Double = 14
  var random = DemoRandom(seed: 20_261_129)
  var nextTransaction = 2_000_000_000
  /// Paid subscriptions still standing after the run: (profile, the purchase as signed).
  var subscribers: [(profile: String, purchase: [String: Any])] = []

  /// Who installs: Apple Ads brand campaign (two keywords and search match), a generic
  /// campaign, and organic installs.
  enum Install: CaseIterable {
    case brandKeywordA, brandKeywordB, brandSearchMatch, generic, organic

    var token: String? {
      switch self {
      case .brandKeywordA: return "sbx|campaign=542370539|ad_group=542370600|keyword=700001"
      case .brandKeywordB: return "sbx|campaign=542370539|ad_group=542370600|keyword=700002"
      case .brandSearchMatch: return "sbx|campaign=542370539|ad_group=542370601|keyword=none"
      case .generic: return "sbx|campaign=611000001|ad_group=611000002|keyword=700100"
      case .organic: return nil
      }
    }
  }

  /// How likely a viewer of each flow buys (the demo's made-up truth the report should find).
  static let conversion: [String: Double] = ["aa_offer": 0.05, "aa_offer_b": 0.09, "standard": 0.025]
  /// Product prices in milliunits (USD, EUR).
  static let prices: [String: (Int64, Int64)] = [
    "pro_annual_intro": (29_990, 27_990), "pro_annual_trial": (59_990, 54_990), "pro_monthly": (9_990, 8_990),
  ]

  mutating func run(installs: Int) async throws {
    defer { time.set(behind: 0) }
    for index in 0..<installs {
      time.set(behind: Self.spreadDays * 86_400 * (1 - Double(index) / Double(max(installs, 1))))
      let kind: Install =
        index % 8 < 2
        ? .brandKeywordA
        : index % 8 == 2
          ? .brandKeywordB
          : index % 8 == 3
            ? .brandSearchMatch
            : index % 8 == 4 ? .generic : .organic
      try await install(kind)
    }
  }

  private mutating func install(_ kind: Install) async throws {
    let profile = random.uuid()
    try await sdk("POST", "/v1/sdk/profiles", ["profile_id": profile, "install": ["app_version": "2.4.0"]])
    if let token = kind.token {
      try await sdk("POST", "/v1/sdk/profiles/\(profile)/attribution/apple-ads", ["token": token])
    }
    let answer = try await sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(profile)", nil)
    let flow = try WireCoding.decoder.decode(PlacementFlowResponse.self, from: answer).flow
    var events: [[String: Any]] = [
      ["type": "flow_shown", "profile_id": profile, "placement_id": "onboarding", "variation_id": flow.variationId]
    ]
    if kind != .organic {
      // Most Apple Ads installs get their targeted flow before the 3 s timeout.
      events.append([
        "type": "first_launch_flow", "profile_id": profile, "placement_id": "onboarding",
        "variation_id": flow.variationId, "source": random.chance(0.88) ? "segmented" : "default_audience",
      ])
    }
    try await sdk("POST", "/v1/sdk/events", ["events": events])
    guard random.chance(Self.conversion[flow.id] ?? 0.03), let product = flow.products.first else { return }
    let euro = random.chance(0.25)
    let trial = product == "pro_annual_trial"
    let now = Int64(time.now().timeIntervalSince1970 * 1000)
    let original = String(nextTransaction)
    nextTransaction += 1
    var purchase: [String: Any] = [
      "transactionId": original, "originalTransactionId": original, "bundleId": "com.example.tollgate",
      "productId": product, "purchaseDate": now, "originalPurchaseDate": now,
      "expiresDate": now + (trial ? 14 : 365) * 86_400_000, "type": "Auto-Renewable Subscription",
      "appAccountToken": profile, "environment": "Sandbox", "transactionReason": "PURCHASE",
      "inAppOwnershipType": "PURCHASED", "currency": euro ? "EUR" : "USD",
      "price": trial ? 0 : (euro ? Self.prices[product]?.1 : Self.prices[product]?.0) ?? 9_990,
    ]
    if trial {
      purchase["offerType"] = 1
      purchase["offerDiscountType"] = "FREE_TRIAL"
    }
    try await buy(purchase, profile: profile, variation: flow.variationId)
    if !trial { subscribers.append((profile, purchase)) }
    if trial, random.chance(0.55) {
      // The trial ends and the first paid year starts (StoreKit's Transaction.updates).
      let renewal = String(nextTransaction)
      nextTransaction += 1
      var paid = purchase
      paid["transactionId"] = renewal
      paid["transactionReason"] = "RENEWAL"
      paid["purchaseDate"] = now + 60_000
      paid["expiresDate"] = now + 60_000 + 365 * 86_400_000
      paid["price"] = (euro ? Self.prices[product]?.1 : Self.prices[product]?.0) ?? 9_990
      paid.removeValue(forKey: "offerType")
      paid.removeValue(forKey: "offerDiscountType")
      try await buy(paid, profile: profile, variation: nil)
    } else if !trial, random.chance(0.06) {
      defer { subscribers.removeLast() }
      // Apple refunds it and says so.
      var refunded = purchase
      refunded["revocationDate"] = now + 120_000
      refunded["revocationReason"] = 0
      refunded["signedDate"] = now + 120_000
      let notification: [String: Any] = [
        "notificationType": "REFUND", "notificationUUID": random.uuid(), "version": "2.0",
        "data": ["bundleId": "com.example.tollgate", "environment": "Sandbox", "signedTransactionInfo": refunded],
      ]
      try await post(
        "/v1/app-store/notifications/demo",
        body: ["signedPayload": try signer.sign(json: notification, now: time.now())], key: nil)
    }
  }

  private func buy(_ transaction: [String: Any], profile: String, variation: String?) async throws {
    var body: [String: Any] = ["signed_transaction": try signer.sign(json: transaction, now: time.now())]
    if let variation { body["variation_id"] = variation }
    try await sdk("POST", "/v1/sdk/profiles/\(profile)/transactions", body)
  }

  @discardableResult
  private func sdk(_ method: String, _ path: String, _ body: [String: Any]?) async throws -> Data {
    try await request(method, path, body: body, authorization: "Api-Key \(keys.publicKey)")
  }

  /// Apple's notification about a profile's purchase, signed now; delivered to the server
  /// unless `delivered` is false (then only Apple's history has it). Returns the JWS.
  @discardableResult
  func notify(
    _ type: String, subtype: String? = nil, transaction: [String: Any], extra: [String: Any] = [:], delivered: Bool
  )
    async throws -> String
  {
    var data: [String: Any] = [
      "bundleId": "com.example.tollgate", "environment": "Sandbox", "signedTransactionInfo": transaction,
    ]
    data.merge(extra) { _, new in new }
    var notification: [String: Any] = [
      "notificationType": type, "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0", "data": data,
    ]
    if let subtype { notification["subtype"] = subtype }
    let jws = try signer.sign(json: notification, now: time.now())
    if delivered { try await post("/v1/app-store/notifications/demo", body: ["signedPayload": jws], key: nil) }
    return jws
  }

  /// A transaction signed now, as Apple's API answers it.
  func signed(_ transaction: [String: Any]) throws -> String { try signer.sign(json: transaction, now: time.now()) }

  /// POSTs to the admin API; its answer, decoded.
  func adminPost<T: Decodable>(_ path: String, _ body: [String: Any], as type: T.Type) async throws -> T {
    let data = try await request("POST", path, body: body, authorization: "Bearer \(keys.secretKey)")
    return try WireCoding.decoder.decode(type, from: data)
  }

  private func post(_ path: String, body: [String: Any], key: String?) async throws {
    _ = try await request("POST", path, body: body, authorization: key)
  }

  /// Imports NDJSON lines of profiles through the admin API; what the import did.
  func importProfiles(_ lines: [String]) async throws -> ProfileImportSummary {
    var request = URLRequest(url: URL(string: base.absoluteString + "/v1/admin/imports")!)
    request.httpMethod = "POST"
    request.setValue("Bearer \(keys.secretKey)", forHTTPHeaderField: "Authorization")
    request.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data((lines.joined(separator: "\n") + "\n").utf8)
    let (data, response) = try await URLSession.shared.data(for: request)
    guard (response as? HTTPURLResponse)?.statusCode == 201 else {
      throw Failure("demo: POST /v1/admin/imports answered \(String(decoding: data, as: UTF8.self))", status: 1)
    }
    return try WireCoding.decoder.decode(ProfileImportSummary.self, from: data)
  }

  /// The admin API's answer, decoded.
  func admin<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
    let data = try await request("GET", path, body: nil, authorization: "Bearer \(keys.secretKey)")
    return try WireCoding.decoder.decode(type, from: data)
  }

  private func request(_ method: String, _ path: String, body: [String: Any]?, authorization: String?) async throws
    -> Data
  {
    var request = URLRequest(url: URL(string: base.absoluteString + path)!)
    request.httpMethod = method
    if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
    if let body {
      request.httpBody = try JSONSerialization.data(withJSONObject: body)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else {
      throw Failure("demo: \(method) \(path) answered \(status): \(String(decoding: data, as: UTF8.self))", status: 1)
    }
    return data
  }
}

/// A seeded generator, so the demo's figures are the same on every run.
struct DemoRandom {
  var state: UInt64
  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }

  mutating func chance(_ probability: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < probability }

  mutating func uuid() -> String {
    let high = next()
    let low = next()
    let hex = String(format: "%016llx%016llx", high, low)
    let chars = Array(hex)
    return
      "\(String(chars[0..<8]))-\(String(chars[8..<12]))-4\(String(chars[13..<16]))-a\(String(chars[17..<20]))-\(String(chars[20..<32]))"
  }
}
