import Foundation
import Testing
import TollgateAPI
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// `flows[].paywall`: validated with the configuration, served with the flow and in the fallback file.
@Suite("Paywall documents in the configuration")
struct PaywallConfigTests {
  /// The conformance fixtures' document, fitted to the sample's `standard` flow (monthly, annual).
  static func document() throws -> [String: Any] {
    let fixture = try Data(contentsOf: repositoryRoot.appendingPathComponent("Fixtures/paywalls/01-english-light.json"))
    var document =
      ((try JSONSerialization.jsonObject(with: fixture) as! [String: Any])["input"] as! [String: Any])[
        "document"] as! [String: Any]
    var blocks = document["blocks"] as! [[String: Any]]
    for (index, block) in blocks.enumerated() where block["type"] as? String == "products" {
      var products = block["products"] as! [[String: Any]]
      products.removeAll { $0["product"] as? String == "pro_weekly" }
      blocks[index]["products"] = products
    }
    document["blocks"] = blocks
    return document
  }

  /// The sample configuration with `paywall` on the `standard` flow.
  static func configuration(_ paywall: [String: Any]) throws -> String {
    let sample = try Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"))
    var root = try JSONSerialization.jsonObject(with: sample) as! [String: Any]
    var flows = root["flows"] as! [[String: Any]]
    let index = flows.firstIndex { $0["id"] as? String == "standard" }!
    flows[index]["paywall"] = paywall
    root["flows"] = flows
    return String(decoding: try JSONSerialization.data(withJSONObject: root), as: UTF8.self)
  }

  /// Uploads the image the document's first block shows and points the block at it.
  static func withUploadedImage(_ document: [String: Any], on server: TestServer) async throws -> [String: Any] {
    let upload = try await server.send(
      "POST", "/v1/admin/assets", key: server.adminKey, scheme: "Bearer", body: try AssetTests.png(),
      contentType: "image/png")
    var document = document
    var blocks = document["blocks"] as! [[String: Any]]
    blocks[0]["asset"] = try upload.decode(AssetPayload.self).sha256
    document["blocks"] = blocks
    return document
  }

  @Test("a valid document is served with its flow and in the fallback file, unchanged")
  func served() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    // The fixture's image was never uploaded here: refused at its path until it is.
    let missing = try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(try Self.document()))
    #expect(missing.errorCode == "invalid_config" && missing.errorPaths == ["$.flows[0].paywall.blocks[0].asset"])
    let document = try await Self.withUploadedImage(try Self.document(), on: server)
    #expect(try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document)).status == 200)
    let answer = try await server.sdk("GET", "/v1/sdk/placements/onboarding/default?locale=fr")
    let flow = try answer.decode(PlacementFlowResponse.self).flow
    let expected = try WireCoding.decoder.decode(JSONValue.self, from: JSONSerialization.data(withJSONObject: document))
    #expect(flow.id == "standard" && flow.paywall == expected)
    // The SDK reads it as a version 1 document.
    let decoded = try WireCoding.decoder.decode(PaywallDocument.self, from: WireCoding.encode(flow.paywall!))
    #expect(decoded.version == 1 && decoded.blocks.count == 9)
    let fallback = try await server.sdk("GET", "/v1/sdk/fallback").decode(FallbackFile.self)
    #expect(fallback.placements.first { $0.id == "onboarding" }?.flow.paywall == expected)
    // The image (141 KiB) fits the default budget: the bundled paywall shows it offline.
    let hash = try #require(decoded.blocks[0].asset)
    #expect(fallback.assets?[hash].flatMap { Data(base64Encoded: $0) } == (try AssetTests.png()))
  }

  @Test("the fallback export embeds the documents' images smallest first, within its budget")
  func fallbackBudget() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    var document = try await Self.withUploadedImage(try Self.document(), on: server)
    let small = AssetTests.pngHeader(width: 10, height: 10)
    let upload = try await server.send(
      "POST", "/v1/admin/assets", key: server.adminKey, scheme: "Bearer", body: small, contentType: "image/png")
    let smallHash = try upload.decode(AssetPayload.self).sha256
    document["screen"] = [
      "background": ["image": smallHash], "safe_area": "ignore",
      "close_button": ["position": "top_right", "delay_ms": 0],
    ]
    #expect(try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document)).status == 200)
    let large = try AssetTests.png()
    let largeHash = (document["blocks"] as! [[String: Any]])[0]["asset"] as! String
    let store = try SQLiteStore(path: server.databasePath)
    defer { store.close() }
    func exported(budget: Int) throws -> [String: String]? {
      let data = try #require(
        try FallbackExport(database: store).fallbackFile(appId: server.alpha.app.id, assetBudget: budget))
      return try WireCoding.decoder.decode(FallbackFile.self, from: data).assets
    }
    #expect(try exported(budget: 0) == [:])
    #expect(try exported(budget: small.count + large.count - 1) == [smallHash: small.base64EncodedString()])
    #expect(try exported(budget: small.count + large.count)?.keys.sorted() == [smallHash, largeHash].sorted())
    #expect(try exported(budget: FallbackFile.assetBudget)?.count == 2)
  }

  @Test("every problem at its path: keys, tokens, products, locales, contrast, version")
  func problems() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    var document = try Self.document()
    document["version"] = 2
    document["colour"] = "red"
    var style = document["style"] as! [String: Any]
    var colors = style["colors"] as! [String: [String: String]]
    colors["light"]!["secondary_text"] = "#BBBBBB"  // 1.9:1 on white
    style["colors"] = colors
    document["style"] = style
    var blocks = document["blocks"] as! [[String: Any]]
    blocks[1]["text"] = ["en": "Unlock {everything}", "fr": "Tout débloquer"]
    blocks[2]["text"] = ["en": "Cancel anytime."]
    blocks[4]["selected"] = "pro_weekly"
    var products = blocks[4]["products"] as! [[String: Any]]
    products[1]["product"] = "pro_lifetime"
    products[0]["detail"] = ["en": "{trial_days} days free", "fr": "{trial_days} jours gratuits"]
    blocks[4]["products"] = products
    blocks[7]["terms_url"] = "http://example.com/terms"
    blocks.append(["type": "video", "url": "https://example.com/a.mp4"])
    document["blocks"] = blocks
    let answer = try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document))
    #expect(answer.status == 422 && answer.errorCode == "invalid_config")
    let base = "$.flows[0].paywall"
    #expect(
      Set(answer.errorPaths) == [
        "\(base).version", "\(base).colour", "\(base).style.colors.light.secondary_text",
        "\(base).blocks[1].text.en", "\(base).blocks[2].text", "\(base).blocks[4].selected",
        "\(base).blocks[4].products[1].product", "\(base).blocks[4].products[0].detail.en",
        "\(base).blocks[4].products[0].detail.fr", "\(base).blocks[7].terms_url", "\(base).blocks[9].type",
      ], "\(answer.errorPaths)")
    // Nothing was applied.
    #expect(try await server.admin("GET", "/v1/admin/config").errorCode == "config_not_found")
  }

  @Test("a custom button needs an action id the app can match; legal links open in the browser or in the app")
  func customButtonsAndLinks() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    var document = try await Self.withUploadedImage(try Self.document(), on: server)
    var blocks = document["blocks"] as! [[String: Any]]
    blocks[7]["links_presentation"] = "in_app"
    blocks.append(["type": "custom_button", "action_id": "login", "text": ["en": "Log in", "fr": "Connexion"]])
    document["blocks"] = blocks
    let accepted = try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document))
    #expect(accepted.status == 200, "\(accepted.errorPaths)")
    blocks[7]["links_presentation"] = "popup"
    blocks[9]["action_id"] = "log in!"
    blocks.append(["type": "custom_button", "text": ["en": "Help", "fr": "Aide"]])
    document["blocks"] = blocks
    let refused = try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document))
    let base = "$.flows[0].paywall"
    #expect(refused.status == 422)
    #expect(
      Set(refused.errorPaths) == [
        "\(base).blocks[7].links_presentation", "\(base).blocks[9].action_id", "\(base).blocks[10].action_id",
      ], "\(refused.errorPaths)")
  }

  @Test("allow_low_contrast and locale_fallback are explicit choices the validator accepts")
  func explicitChoices() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    var document = try await Self.withUploadedImage(try Self.document(), on: server)
    var style = document["style"] as! [String: Any]
    var colors = style["colors"] as! [String: [String: String]]
    colors["dark"]!["on_accent"] = "#FFFFFF"  // white on #60A5FA: 2.5:1
    style["colors"] = colors
    document["style"] = style
    var blocks = document["blocks"] as! [[String: Any]]
    blocks[2]["text"] = ["en": "Cancel anytime."]
    document["blocks"] = blocks
    let refused = try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document))
    #expect(
      Set(refused.errorPaths) == [
        "$.flows[0].paywall.style.colors.dark.on_accent", "$.flows[0].paywall.blocks[2].text",
      ])
    style["allow_low_contrast"] = true
    document["style"] = style
    document["locale_fallback"] = true
    #expect(try await server.admin("PUT", "/v1/admin/config", json: Self.configuration(document)).status == 200)
  }

  @Test("WCAG contrast as the specification computes it")
  func contrast() {
    #expect(abs(WCAG.contrast("#000000", "#FFFFFF") - 21) < 1e-9)
    #expect(abs(WCAG.contrast("#777777", "#FFFFFF") - 4.48) < 0.01)
    #expect(WCAG.contrast("#1D4ED8", "#FFFFFF") > 4.5)
  }
}

/// Two variations of one placement carrying two designs: each user gets their variation's
/// document (the reports count variations whatever their flows carry).
@Suite("Experiments on paywall designs")
struct PaywallDesignExperimentTests {
  @Test("each variation serves its own document")
  func twoDesigns() async throws {
    let server = try TestServer(mode: .inProcess)
    defer { server.stop() }
    func design(_ title: String) throws -> [String: Any] {
      var document = try PaywallConfigTests.document()
      var blocks = (document["blocks"] as! [[String: Any]]).filter { $0["type"] as? String != "image" }
      for (index, block) in blocks.enumerated() where block["type"] as? String == "title" {
        blocks[index]["text"] = ["en": title, "fr": title]
      }
      document["blocks"] = blocks
      return document
    }
    let flows: [[String: Any]] = [
      ["id": "design_a", "products": ["pro_annual", "pro_monthly"], "paywall": try design("Design A")],
      ["id": "design_b", "products": ["pro_annual", "pro_monthly"], "paywall": try design("Design B")],
    ]
    let config: [String: Any] = [
      "flows": flows, "audiences": [["id": "everyone", "rule": [String: Any]()]],
      "placements": [
        [
          "id": "onboarding", "default": "design_a",
          "targets": [
            [
              "audience": "everyone",
              "experiment": [
                "name": "Design test",
                "variations": [["flow": "design_a", "weight": 50], ["flow": "design_b", "weight": 50]],
              ],
            ]
          ],
        ]
      ],
    ]
    let body = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
    #expect(try await server.admin("PUT", "/v1/admin/config", json: body).status == 200)
    var titles: [String: Set<String>] = [:]
    for _ in 0..<40 {
      let profile = UUID().uuidString.lowercased()
      _ = try await server.createProfile(profile)
      let answer = try await server.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(profile)&locale=en")
      let flow = try answer.decode(PlacementFlowResponse.self).flow
      let document = try WireCoding.decoder.decode(
        PaywallDocument.self, from: WireCoding.encode(try #require(flow.paywall)))
      let title = document.blocks.first { $0.type == "title" }?.text?["en"] ?? ""
      titles[flow.variationId, default: []].insert(title)
    }
    #expect(titles["onboarding:everyone:design_a"] == ["Design A"])
    #expect(titles["onboarding:everyone:design_b"] == ["Design B"])
  }
}
