import Foundation
import TollgateAPI
import TollgateSupport

/// `flows[].paywall`: a paywall document checked like the rest of the configuration — every
/// problem at its JSON path, unknown keys refused, tokens known (introductory-offer tokens only
/// in intro texts), products the flow's own, every locale in every text (or
/// `locale_fallback: true`), and text colours at WCAG AA contrast (4.5:1) on their backgrounds
/// in both appearances unless `style.allow_low_contrast`.
extension ConfigValidator.Validation {
  static let localePattern = "^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$"
  static let sha256Pattern = "^[0-9a-f]{64}$"

  /// Keys each block type takes besides `type`; the first list is required.
  static let blockKeys: [String: (required: Set<String>, optional: Set<String>)] = [
    "image": (["asset"], ["height"]),
    "title": (["text"], ["intro_text"]), "subtitle": (["text"], ["intro_text"]), "text": (["text"], ["intro_text"]),
    "footer": (["text"], ["intro_text"]), "purchase_button": (["text"], ["intro_text"]),
    "restore_button": (["text"], []), "custom_button": (["text", "action_id"], []),
    "features": (["features"], []),
    "products": (["products"], ["layout", "selected"]),
    "legal": ([], ["terms_url", "privacy_url", "terms_text", "privacy_text", "links_presentation"]),
  ]

  /// The document as the flow serves it, or nil after reporting its problems.
  mutating func paywall(_ json: JSONValue, at path: String, products: [String]) -> JSONValue? {
    let before = problems.count
    guard
      let root = object(
        json, at: path, required: ["version", "default_locale", "screen", "style", "blocks"],
        optional: ["locale_fallback"])
    else { return nil }
    switch root["version"] {
    case .int(let version)? where (1...PaywallDocument.supportedVersion).contains(Int(version)): break
    default:
      fail("\(path).version", "this server reads paywall documents of version 1 to \(PaywallDocument.supportedVersion)")
    }
    let defaultLocale = string(root["default_locale"], at: "\(path).default_locale") ?? ""
    if defaultLocale.range(of: Self.localePattern, options: .regularExpression) == nil {
      fail("\(path).default_locale", "a locale such as en, fr or pt-BR")
    }
    let fallback: Bool
    switch root["locale_fallback"] {
    case nil: fallback = false
    case .bool(let value)?: fallback = value
    case let other?:
      fail("\(path).locale_fallback", "must be true or false, not \(other.typeName)")
      fallback = false
    }
    let roles = paywallStyle(root["style"], at: "\(path).style")
    if let screen = object(root["screen"], at: "\(path).screen", required: ["background", "safe_area", "close_button"])
    {
      paywallScreen(screen, at: "\(path).screen", roles: roles)
    }
    // Texts are checked once every locale in use is known.
    var texts: [(path: String, text: [String: JSONValue], intro: Bool)] = []
    var productBlocks = 0
    var purchaseButtons = 0
    let blocks = array(root["blocks"], at: "\(path).blocks")
    if blocks.isEmpty { fail("\(path).blocks", "a paywall needs at least one block") }
    for (index, item) in blocks.enumerated() {
      let blockPath = "\(path).blocks[\(index)]"
      guard let type = item.objectValue?["type"]?.stringValue, let keys = Self.blockKeys[type] else {
        fail(
          "\(blockPath).type",
          "one of \(PaywallDocument.blockTypes.joined(separator: ", "))")
        continue
      }
      guard let block = object(item, at: blockPath, required: keys.required.union(["type"]), optional: keys.optional)
      else { continue }
      func collect(
        _ key: String, intro: Bool = false, in object: [String: JSONValue] = block, at base: String = blockPath
      ) {
        guard let value = object[key] else { return }
        guard let text = value.objectValue, !text.isEmpty else {
          fail("\(base).\(key)", "an object of locale → text")
          return
        }
        texts.append(("\(base).\(key)", text, intro))
      }
      collect("text")
      collect("intro_text", intro: true)
      switch type {
      case "image":
        paywallAsset(block["asset"], at: "\(blockPath).asset")
        if let height = block["height"], (height.numberValue.map { !(1...2_000).contains($0) } ?? true) {
          fail("\(blockPath).height", "points, 1 to 2000")
        }
      case "features":
        let features = array(block["features"], at: "\(blockPath).features")
        if features.isEmpty { fail("\(blockPath).features", "at least one feature") }
        for (position, feature) in features.enumerated() {
          let featurePath = "\(blockPath).features[\(position)]"
          guard let object = object(feature, at: featurePath, required: ["icon", "text"]) else { continue }
          if (string(object["icon"], at: "\(featurePath).icon") ?? "").isEmpty {
            fail("\(featurePath).icon", "an SF Symbol name such as checkmark.circle")
          }
          collect("text", in: object, at: featurePath)
        }
      case "products":
        productBlocks += 1
        if let layout = block["layout"], !["list", "cards"].contains(layout.stringValue ?? "") {
          fail("\(blockPath).layout", "list or cards")
        }
        let items = array(block["products"], at: "\(blockPath).products")
        if items.isEmpty { fail("\(blockPath).products", "at least one product") }
        var listed: [String] = []
        for (position, item) in items.enumerated() {
          let itemPath = "\(blockPath).products[\(position)]"
          guard
            let object = object(
              item, at: itemPath, required: ["product", "detail"], optional: ["title", "intro_detail", "badge"]),
            let product = string(object["product"], at: "\(itemPath).product")
          else { continue }
          if !products.contains(product) {
            fail(
              "\(itemPath).product",
              "\(product) is not one of the flow's products (\(products.joined(separator: ", ")))")
          }
          if listed.contains(product) { fail("\(itemPath).product", "\(product) is listed twice") }
          listed.append(product)
          for key in ["title", "detail", "badge"] { collect(key, in: object, at: itemPath) }
          collect("intro_detail", intro: true, in: object, at: itemPath)
        }
        if let selected = block["selected"] {
          let id = string(selected, at: "\(blockPath).selected")
          if let id, !listed.contains(id) { fail("\(blockPath).selected", "\(id) is not one of this block's products") }
        }
      case "purchase_button":
        purchaseButtons += 1
      case "custom_button":
        let id = string(block["action_id"], at: "\(blockPath).action_id") ?? ""
        if id.range(of: PaywallDocument.actionIdPattern, options: .regularExpression) == nil {
          fail("\(blockPath).action_id", "1–64 letters, digits, '_', '.' or '-': the id the app receives")
        }
      case "legal":
        if let presentation = block["links_presentation"],
          !["browser", "in_app"].contains(presentation.stringValue ?? "")
        {
          fail("\(blockPath).links_presentation", "browser or in_app")
        }
        if block["terms_url"] == nil && block["privacy_url"] == nil {
          fail(blockPath, "a legal block links terms_url, privacy_url or both")
        }
        for (url, text) in [("terms_url", "terms_text"), ("privacy_url", "privacy_text")] {
          guard let value = block[url] else {
            if block[text] != nil { fail("\(blockPath).\(text)", "\(url) is missing") }
            continue
          }
          let link = string(value, at: "\(blockPath).\(url)").flatMap(URL.init(string:))
          if link?.scheme != "https" || link?.host == nil { fail("\(blockPath).\(url)", "an https URL") }
          if block[text] == nil { fail("\(blockPath).\(text)", "is required with \(url)") }
          collect(text)
        }
      default: break
      }
    }
    if productBlocks > 1 { fail("\(path).blocks", "at most one products block") }
    if purchaseButtons > 1 { fail("\(path).blocks", "at most one purchase_button block") }
    paywallTexts(texts, defaultLocale: defaultLocale, fallback: fallback)
    return problems.count == before ? json : nil
  }

  /// `style`: both appearances with every colour role, text styles, radius and spacing, and
  /// the contrast of text on its background. Returns the colour roles of each appearance.
  mutating func paywallStyle(_ json: JSONValue?, at path: String) -> [String: [String: String]] {
    guard
      let style = object(
        json, at: path, required: ["colors", "text_styles", "corner_radius", "spacing"],
        optional: ["allow_low_contrast"])
    else { return [:] }
    var palettes: [String: [String: String]] = [:]
    if let colors = object(style["colors"], at: "\(path).colors", required: ["light", "dark"]) {
      for appearance in ["light", "dark"] {
        let base = "\(path).colors.\(appearance)"
        guard let roles = object(colors[appearance], at: base, required: Set(PaywallDocument.colorRoles)) else {
          continue
        }
        var palette: [String: String] = [:]
        for role in PaywallDocument.colorRoles {
          guard let value = string(roles[role], at: "\(base).\(role)") else { continue }
          if value.range(of: "^#[0-9A-Fa-f]{6}$", options: .regularExpression) == nil {
            fail("\(base).\(role)", "a colour such as #1D4ED8")
          } else {
            palette[role] = value
          }
        }
        palettes[appearance] = palette
      }
    }
    if let styles = object(style["text_styles"], at: "\(path).text_styles", required: ["title", "body", "caption"]) {
      for name in ["title", "body", "caption"] {
        let base = "\(path).text_styles.\(name)"
        guard let textStyle = object(styles[name], at: base, required: ["size", "weight"]) else { continue }
        if textStyle["size"]?.numberValue.map({ (8...96).contains($0) }) != true {
          fail("\(base).size", "points, 8 to 96")
        }
        if !["regular", "medium", "semibold", "bold"].contains(textStyle["weight"]?.stringValue ?? "") {
          fail("\(base).weight", "regular, medium, semibold or bold")
        }
      }
    }
    for key in ["corner_radius", "spacing"] where style[key]?.numberValue.map({ (0...64).contains($0) }) != true {
      fail("\(path).\(key)", "points, 0 to 64")
    }
    var allowLow = false
    switch style["allow_low_contrast"] {
    case nil: break
    case .bool(let value)?: allowLow = value
    case let other?: fail("\(path).allow_low_contrast", "must be true or false, not \(other.typeName)")
    }
    guard !allowLow else { return palettes }
    for (appearance, palette) in palettes.sorted(by: { $0.key < $1.key }) {
      for (foreground, background) in [
        ("text", "background"), ("secondary_text", "background"), ("on_accent", "accent"), ("text", "card"),
      ] {
        guard let front = palette[foreground], let back = palette[background] else { continue }
        let ratio = WCAG.contrast(front, back)
        if ratio < 4.5 {
          fail(
            "\(path).colors.\(appearance).\(foreground)",
            String(
              format: "contrast %.2f:1 on %@ (%@) is below WCAG AA 4.5:1; set allow_low_contrast to accept it", ratio,
              background, back))
        }
      }
    }
    return palettes
  }

  /// `screen`: background (a colour role or an image), safe area, close button.
  mutating func paywallScreen(_ screen: [String: JSONValue], at path: String, roles: [String: [String: String]]) {
    if let background = object(
      screen["background"], at: "\(path).background", required: [], optional: ["color", "image"])
    {
      switch (background["color"], background["image"]) {
      case (let color?, nil):
        let role = string(color, at: "\(path).background.color") ?? ""
        if !PaywallDocument.colorRoles.contains(role) {
          fail("\(path).background.color", "a colour role: \(PaywallDocument.colorRoles.joined(separator: ", "))")
        }
      case (nil, let image?): paywallAsset(image, at: "\(path).background.image")
      default: fail("\(path).background", "either color (a colour role) or image (an asset's SHA-256)")
      }
    }
    if !["respect", "ignore"].contains(screen["safe_area"]?.stringValue ?? "") {
      fail("\(path).safe_area", "respect or ignore")
    }
    if let close = object(screen["close_button"], at: "\(path).close_button", required: ["position", "delay_ms"]) {
      if !["top_left", "top_right", "none"].contains(close["position"]?.stringValue ?? "") {
        fail("\(path).close_button.position", "top_left, top_right or none")
      }
      guard case .int(let delay)? = close["delay_ms"], (0...30_000).contains(delay) else {
        fail("\(path).close_button.delay_ms", "milliseconds, 0 to 30000")
        return
      }
    }
  }

  mutating func paywallAsset(_ json: JSONValue?, at path: String) {
    guard let hash = string(json, at: path) else { return }
    if hash.range(of: Self.sha256Pattern, options: .regularExpression) == nil {
      fail(path, "an uploaded asset's SHA-256 (64 lower-case hex digits)")
    }
  }

  /// Locales: every text has the default one, and every locale any text has (unless
  /// `locale_fallback`); tokens: known, and intro tokens only in intro texts.
  mutating func paywallTexts(
    _ texts: [(path: String, text: [String: JSONValue], intro: Bool)], defaultLocale: String, fallback: Bool
  ) {
    let locales = Set(texts.flatMap(\.text.keys)).union([defaultLocale])
    for (path, text, intro) in texts {
      for (locale, value) in text.sorted(by: { $0.key < $1.key }) {
        if locale.range(of: Self.localePattern, options: .regularExpression) == nil {
          fail("\(path).\(locale)", "not a locale such as en, fr or pt-BR")
        }
        guard let words = value.stringValue else {
          fail("\(path).\(locale)", "must be a string, not \(value.typeName)")
          continue
        }
        for token in Self.tokens(in: words) {
          if !PaywallDocument.tokens.contains(token) {
            fail(
              "\(path).\(locale)",
              "unknown token {\(token)} (expected \(PaywallDocument.tokens.map { "{\($0)}" }.joined(separator: ", ")))")
          } else if PaywallDocument.introTokens.contains(token) && !intro {
            fail(
              "\(path).\(locale)",
              "{\(token)} belongs in intro_text or intro_detail (shown to users eligible for the offer)")
          }
        }
        if words.filter({ $0 == "{" }).count != words.filter({ $0 == "}" }).count {
          fail("\(path).\(locale)", "unbalanced { } in the text")
        }
      }
      let missing =
        fallback ? (text[defaultLocale] == nil ? [defaultLocale] : []) : locales.subtracting(text.keys).sorted()
      if !missing.isEmpty {
        fail(
          path,
          "missing \(missing.joined(separator: ", ")) (every text has each locale of the document; locale_fallback: true shows \(defaultLocale) instead)"
        )
      }
    }
  }

  /// `{name}` tokens of a text, in order.
  static func tokens(in text: String) -> [String] {
    var found: [String] = []
    _ = PaywallDocument.replacingTokens(in: text) { name in
      found.append(name)
      return nil
    }
    return found
  }
}

/// WCAG 2 contrast between two `#RRGGBB` colours.
enum WCAG {
  static func contrast(_ first: String, _ second: String) -> Double {
    let (a, b) = (luminance(first), luminance(second))
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)
  }

  static func luminance(_ hex: String) -> Double {
    let value = Int(hex.dropFirst(), radix: 16) ?? 0
    func channel(_ shift: Int) -> Double {
      let c = Double((value >> shift) & 0xFF) / 255
      return c <= 0.039_28 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
    }
    return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0)
  }
}
