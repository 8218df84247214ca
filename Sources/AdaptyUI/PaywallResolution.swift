import Adapty
import Foundation
import TollgateAPI

/// A product as the store describes it, for resolving a paywall's texts.
struct PaywallStoreProduct: Codable, Sendable, Hashable {
  var id: String
  var title: String
  /// The price as a plain decimal ("39.99").
  var price: String
  /// The store's formatted price ("39,99 €"): per-week and per-month prices are written like it.
  var displayPrice: String
  /// ISO 8601 subscription period (`P1W`, `P1M`, `P3M`, `P1Y`); nil for a one-time purchase.
  var period: String?
  var intro: Intro?

  /// An introductory offer.
  struct Intro: Codable, Sendable, Hashable {
    /// `free_trial`, `pay_as_you_go` or `pay_up_front`.
    var kind: String
    var period: String
    var displayPrice: String?

    enum CodingKeys: String, CodingKey {
      case kind, period
      case displayPrice = "display_price"
    }
  }

  enum CodingKeys: String, CodingKey {
    case id, title, price, period, intro
    case displayPrice = "display_price"
  }
}

/// What a paywall is resolved from: the document, the store's products, the user's locale,
/// appearance and eligibility for introductory offers, and the product the user selected.
struct PaywallResolutionInput: Codable, Sendable, Hashable {
  var document: PaywallDocument
  var products: [PaywallStoreProduct]
  var locale: String
  /// `light` or `dark`.
  var appearance: String
  var eligibleForIntro: Bool
  var selected: String?

  enum CodingKeys: String, CodingKey {
    case document, products, locale, appearance, selected
    case eligibleForIntro = "eligible_for_intro"
  }
}

/// A paywall ready to draw: every text final, every colour a hex value of one appearance.
struct ResolvedPaywall: Codable, Sendable, Hashable {
  var locale: String
  var appearance: String
  var colors: [String: String]
  var background: Background
  var safeArea: String
  var closeButton: PaywallDocument.Screen.CloseButton
  var cornerRadius: Double
  var spacing: Double
  var textStyles: [String: PaywallDocument.Style.TextStyle]
  var blocks: [ResolvedPaywallBlock]

  struct Background: Codable, Sendable, Hashable {
    var color: String?
    var image: String?
  }

  enum CodingKeys: String, CodingKey {
    case locale, appearance, colors, background, spacing, blocks
    case safeArea = "safe_area"
    case closeButton = "close_button"
    case cornerRadius = "corner_radius"
    case textStyles = "text_styles"
  }
}

/// One resolved block.
struct ResolvedPaywallBlock: Codable, Sendable, Hashable {
  var type: String
  var text: String?
  /// The text style it is drawn in (`title`, `body`, `caption`).
  var style: String?
  var image: String?
  var height: Double?
  var features: [Feature]?
  var layout: String?
  var products: [Product]?
  var links: [Link]?
  /// `custom_button`: the id the app receives.
  var action: String?

  struct Feature: Codable, Sendable, Hashable {
    var icon: String
    var text: String
  }

  struct Product: Codable, Sendable, Hashable {
    var id: String
    var title: String
    var detail: String
    var badge: String?
    var selected: Bool
  }

  struct Link: Codable, Sendable, Hashable {
    var title: String
    var url: String
    /// `in_app` to open in a browser sheet in the app; absent: the browser.
    var presentation: String?
  }
}

/// The one step from (document, products, locale, appearance, eligibility, selection) to a
/// resolved tree. `Fixtures/paywalls/` holds its conformance cases; the console's JavaScript
/// implements the same step against the same cases.
enum PaywallResolution {
  enum Failure: Error, Equatable {
    /// The document is newer than this SDK: show the flow's fallback instead.
    case unsupportedVersion(Int)
  }

  static func resolve(_ input: PaywallResolutionInput) throws(Failure) -> ResolvedPaywall {
    let document = input.document
    guard document.version <= PaywallDocument.supportedVersion else { throw .unsupportedVersion(document.version) }
    let locale = documentLocale(document, requested: input.locale)
    let products = Dictionary(input.products.map { ($0.id, $0) }) { first, _ in first }
    let picker = document.blocks.first { $0.type == "products" }
    let offered = (picker?.products ?? []).map(\.product).filter { products[$0] != nil }
    // The selection: the user's, else the document's, else the first product the store has.
    let selectedId =
      [input.selected, picker?.selected].compactMap { $0 }.first { offered.contains($0) }
      ?? offered.first ?? input.products.first?.id
    let selected = selectedId.flatMap { products[$0] }
    func text(_ text: PaywallDocument.Text?) -> String {
      guard let text else { return "" }
      return text[locale] ?? text[document.defaultLocale] ?? ""
    }
    func eligible(_ product: PaywallStoreProduct?) -> Bool { input.eligibleForIntro && product?.intro != nil }
    func fill(_ template: PaywallDocument.Text?, intro: PaywallDocument.Text?, for product: PaywallStoreProduct?)
      -> String
    {
      let chosen = eligible(product) && intro != nil ? intro : template
      return PaywallTokens.fill(text(chosen), product: product, locale: locale)
    }
    let appearance = input.appearance == "dark" ? "dark" : "light"
    let colors = document.style.colors[appearance] ?? [:]
    var blocks: [ResolvedPaywallBlock] = []
    for block in document.blocks {
      var resolved = ResolvedPaywallBlock(type: block.type)
      switch block.type {
      case "image":
        resolved.image = block.asset
        resolved.height = block.height
      case "title":
        resolved.text = fill(block.text, intro: block.introText, for: selected)
        resolved.style = "title"
      case "subtitle", "text", "purchase_button", "restore_button":
        resolved.text = fill(block.text, intro: block.introText, for: selected)
        resolved.style = "body"
      case "custom_button":
        resolved.text = fill(block.text, intro: nil, for: selected)
        resolved.style = "body"
        resolved.action = block.actionId
      case "footer":
        resolved.text = fill(block.text, intro: block.introText, for: selected)
        resolved.style = "caption"
      case "features":
        resolved.style = "body"
        resolved.features = (block.features ?? []).map {
          .init(icon: $0.icon, text: PaywallTokens.fill(text($0.text), product: selected, locale: locale))
        }
      case "products":
        resolved.layout = block.layout ?? "list"
        resolved.style = "body"
        resolved.products = (block.products ?? []).compactMap { item in
          guard let product = products[item.product] else { return nil }
          let title = item.title.map { fill($0, intro: nil, for: product) } ?? product.title
          return .init(
            id: product.id, title: title, detail: fill(item.detail, intro: item.introDetail, for: product),
            badge: item.badge.map { fill($0, intro: nil, for: product) }, selected: product.id == selectedId)
        }
      case "legal":
        resolved.style = "caption"
        resolved.links = [(block.termsText, block.termsURL), (block.privacyText, block.privacyURL)].compactMap {
          title, url in
          guard let url else { return nil }
          return .init(
            title: text(title), url: url, presentation: block.linksPresentation == "in_app" ? "in_app" : nil)
        }
      default:
        continue
      }
      blocks.append(resolved)
    }
    let background = document.screen.background
    return ResolvedPaywall(
      locale: locale, appearance: appearance, colors: colors,
      background: .init(color: background.color.map { colors[$0] ?? $0 }, image: background.image),
      safeArea: document.screen.safeArea, closeButton: document.screen.closeButton,
      cornerRadius: document.style.cornerRadius, spacing: document.style.spacing,
      textStyles: document.style.textStyles, blocks: blocks)
  }

  /// The document's locale for a requested one: exact, the bare language, another region of
  /// it, else the document's default.
  static func documentLocale(_ document: PaywallDocument, requested: String) -> String {
    var locales: Set<String> = [document.defaultLocale]
    func add(_ text: PaywallDocument.Text?) { text.map { locales.formUnion($0.keys) } }
    for block in document.blocks {
      [block.text, block.introText, block.termsText, block.privacyText].forEach(add)
      block.features?.forEach { add($0.text) }
      block.products?.forEach { [$0.title, $0.detail, $0.introDetail, $0.badge].forEach(add) }
    }
    let best = LocaleMatcher.best(for: requested, among: locales) ?? document.defaultLocale
    let wanted = LocaleMatcher.normalize(requested)
    let language = wanted.split(separator: "-").first.map(String.init) ?? wanted
    let normalized = LocaleMatcher.normalize(best)
    return normalized == wanted || normalized == language || normalized.hasPrefix(language + "-")
      ? best : document.defaultLocale
  }
}

extension ResolvedPaywallBlock {
  init(type: String) { self.type = type }
}

extension ResolvedPaywall {
  /// Red, green and blue in 0…1 of a colour role of this appearance (`accent`, …) or of a
  /// `#RRGGBB` value; nil when neither.
  func rgb(_ roleOrHex: String?) -> (red: Double, green: Double, blue: Double)? {
    guard let roleOrHex else { return nil }
    let hex = colors[roleOrHex] ?? roleOrHex
    guard hex.count == 7, hex.first == "#", let value = Int(hex.dropFirst(), radix: 16) else { return nil }
    return (Double(value >> 16 & 0xFF) / 255, Double(value >> 8 & 0xFF) / 255, Double(value & 0xFF) / 255)
  }
}
