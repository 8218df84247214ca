import Foundation
import Testing
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport
import TollgateTestSupport

@testable import Adapty
@testable import AdaptyUI

/// The no-code path end to end: a starter template of the console (its file, as the Paywalls
/// page loads it) with an uploaded image and edited copy, applied through the admin API, read
/// by an app through `AdaptyUI` — texts, store prices, the image from the server — and its
/// purchase button buying with the flow's variation.
extension EndToEndTests {
  /// A console template's document with its product slots (`$1`, `$2`, …) filled, as the
  /// Paywalls page fills them; slots without a product are left out.
  static func template(_ name: String, products: [String]) throws -> [String: Any] {
    let url = repositoryRoot.appendingPathComponent("Sources/TollgateServer/Dashboard/Resources/template-\(name).json")
    let template = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    var document = template["document"] as! [String: Any]
    func slot(_ value: Any?) -> String? {
      guard let value = value as? String, value.hasPrefix("$"), let index = Int(value.dropFirst()) else { return nil }
      return index <= products.count ? products[index - 1] : nil
    }
    document["blocks"] = (document["blocks"] as! [[String: Any]]).map { block in
      guard block["type"] as? String == "products" else { return block }
      var block = block
      block["products"] = (block["products"] as! [[String: Any]]).compactMap { item -> [String: Any]? in
        guard let product = slot(item["product"]) else { return nil }
        return item.merging(["product": product]) { _, new in new }
      }
      block["selected"] = slot(block["selected"])
      return block
    }
    return document
  }

  @Test("a console template, edited and applied, reaches AdaptyUI with its image and prices; its button buys")
  @MainActor
  func designedPaywall() async throws {
    let live = try LiveServer()
    defer { live.stop() }
    let png = try Data(contentsOf: repositoryRoot.appendingPathComponent("docs/screenshots/console-overview.png"))
    let (uploaded, asset) = try await live.admin("POST", "v1/admin/assets", body: png, contentType: "image/png")
    #expect(uploaded == 201)
    let hash = try #require(asset?.objectValue?["sha256"]?.stringValue)

    var document = try Self.template("cards", products: ["pro_monthly", "pro_annual"])
    var blocks = document["blocks"] as! [[String: Any]]
    blocks[0]["text"] = ["en": "Go Pro today", "fr": "Passez Pro aujourd'hui"]
    blocks.insert(["type": "image", "asset": hash, "height": 160], at: 0)
    document["blocks"] = blocks
    let sample = try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    var config = try JSONSerialization.jsonObject(with: sample) as! [String: Any]
    var flows = config["flows"] as! [[String: Any]]
    flows[flows.firstIndex { $0["id"] as? String == "standard" }!]["paywall"] = document
    config["flows"] = flows
    let (applied, _) = try await live.admin(
      "PUT", "v1/admin/config", body: JSONSerialization.data(withJSONObject: config))
    #expect(applied == 200)

    let store = FakeStoreKit(signer: live.signer)
    try await Adapty.activate(with: live.configuration(store: store))
    let flow = try await Adapty.getFlow(placementId: "settings_upgrade", locale: "fr")
    await #expect(throws: AdaptyUIError.adaptyUINotActivated) {
      _ = try await AdaptyUI.getPaywallConfiguration(forPaywall: flow)
    }
    try await AdaptyUI.activate()
    await #expect(throws: AdaptyUIError.activateOnce) { try await AdaptyUI.activate() }
    let configuration = try await AdaptyUI.getFlowConfiguration(forFlow: flow)
    #expect(configuration.image(hash) == png, "the image came from the server")
    #expect(configuration.locale == "fr" && configuration.flow.variationId == "settings_upgrade:default:standard")

    let recorded = Recorded()
    let session = PaywallSession(configuration: configuration) { recorded.add("\($0)") }
    let tree = try #require(session.resolved(appearance: "dark"))
    #expect(
      tree.blocks.map(\.type) == [
        "image", "title", "text", "products", "features", "purchase_button", "restore_button", "legal",
      ])
    #expect(tree.blocks[1].text == "Passez Pro aujourd'hui")
    let products = try #require(tree.blocks[3].products)
    #expect(products.map(\.id) == ["pro_monthly", "pro_annual"] && products[0].selected)
    #expect(products[1].detail == "$59.99 par an", "the store's price, in French words")
    #expect(tree.blocks[5].text == "S'abonner pour $9.99")
    #expect(tree.colors["background"] == "#1C1917")

    session.appeared()
    session.select("pro_annual")
    #expect(try #require(session.resolved(appearance: "light")).blocks[5].text == "S'abonner pour $59.99")
    await session.purchase()
    #expect(
      recorded.lines == [
        "appeared", "selected pro_annual", "purchase started pro_annual", "purchase finished pro_annual success",
      ])
    let profile = try await Adapty.getProfile()
    #expect(profile.accessLevels["premium"]?.isActive == true)
    await session.impression?.value
    await (try Facade.shared.runtime()).events.drained()
    let (_, activity) = try await live.admin("v1/admin/profiles/\(profile.profileId)/activity")
    let views = activity?.objectValue?["events"]?.arrayValue ?? []
    #expect(views.contains { $0.objectValue?["variation_id"] == .string("settings_upgrade:default:standard") })
    let transactions = activity?.objectValue?["transactions"]?.arrayValue ?? []
    #expect(
      transactions.contains {
        $0.objectValue?["product_id"] == .string("pro_annual")
          && $0.objectValue?["variation_id"] == .string("settings_upgrade:default:standard")
      })
    await quitApp()
  }
}

/// Lines recorded from any isolation.
final class Recorded: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [String] = []
  var lines: [String] { lock.withLock { stored } }
  func add(_ line: String) { lock.withLock { stored.append(line) } }
}
