import Foundation

/// A paywall's design as data (`flows[].paywall` in the configuration): the screen, an ordered
/// list of blocks and a style. The SDK resolves it with the store's products into a tree of
/// blocks with final texts (`PaywallResolution`); a document whose `version` is newer than the
/// SDK knows is not rendered at all (the flow's fallback is), never half.
public struct PaywallDocument: Codable, Sendable, Hashable {
  /// The newest version this build reads.
  public static let supportedVersion = 1

  public var version: Int
  /// The locale texts fall back to when the requested one is missing (see `LocaleMatcher`).
  public var defaultLocale: String
  public var screen: Screen
  public var style: Style
  public var blocks: [Block]

  /// Texts by locale (`{"en": "Go Pro", "fr": "Passez Pro"}`); may hold product tokens.
  public typealias Text = [String: String]

  /// The screen around the blocks.
  public struct Screen: Codable, Sendable, Hashable {
    /// A colour role of the style (`background`, …) or the SHA-256 of an uploaded image.
    public var background: Background
    /// `respect` keeps blocks inside the safe area; `ignore` lets the background run under it.
    public var safeArea: String
    public var closeButton: CloseButton

    public struct Background: Codable, Sendable, Hashable {
      public var color: String?
      public var image: String?
    }

    public struct CloseButton: Codable, Sendable, Hashable {
      /// `top_left`, `top_right` or `none`.
      public var position: String
      /// Milliseconds before it appears.
      public var delayMs: Int

      enum CodingKeys: String, CodingKey {
        case position
        case delayMs = "delay_ms"
      }
    }

    enum CodingKeys: String, CodingKey {
      case background
      case safeArea = "safe_area"
      case closeButton = "close_button"
    }
  }

  /// Colours per appearance, text styles, corner radius and spacing.
  public struct Style: Codable, Sendable, Hashable {
    /// `light` and `dark`, each mapping every colour role to `#RRGGBB`.
    public var colors: [String: [String: String]]
    /// `title`, `body`, `caption`.
    public var textStyles: [String: TextStyle]
    public var cornerRadius: Double
    public var spacing: Double
    /// Accept colour pairs below WCAG AA contrast (4.5:1).
    public var allowLowContrast: Bool?

    public struct TextStyle: Codable, Sendable, Hashable {
      public var size: Double
      /// `regular`, `medium`, `semibold` or `bold`.
      public var weight: String
    }

    enum CodingKeys: String, CodingKey {
      case colors, spacing
      case textStyles = "text_styles"
      case cornerRadius = "corner_radius"
      case allowLowContrast = "allow_low_contrast"
    }
  }

  /// One block; which fields apply depends on `type` (the configuration validator says).
  public struct Block: Codable, Sendable, Hashable {
    /// `image`, `title`, `subtitle`, `text`, `features`, `products`, `purchase_button`,
    /// `restore_button`, `custom_button`, `legal`, `footer`.
    public var type: String
    /// The block's text (title, subtitle, text, footer, buttons).
    public var text: Text?
    /// Shown instead of `text` to a user eligible for the product's introductory offer.
    public var introText: Text?
    /// `image`: the SHA-256 of an uploaded image, and its height in points.
    public var asset: String?
    public var height: Double?
    /// `features`: icon (an SF Symbol name) and text per line.
    public var features: [Feature]?
    /// `products`: `list` or `cards`, the products in order, the one selected first.
    public var layout: String?
    public var products: [ProductItem]?
    public var selected: String?
    /// `custom_button`: the id the app receives (`AdaptyUI.Action.custom(id:)`).
    public var actionId: String?
    /// `legal`: the links, and where they open (`browser`, the default, or `in_app`).
    public var termsURL: String?
    public var privacyURL: String?
    public var termsText: Text?
    public var privacyText: Text?
    public var linksPresentation: String?

    public struct Feature: Codable, Sendable, Hashable {
      public var icon: String
      public var text: Text
    }

    /// A product of the picker: its line (title, detail) and an optional badge.
    public struct ProductItem: Codable, Sendable, Hashable {
      public var product: String
      public var title: Text?
      public var detail: Text?
      public var introDetail: Text?
      public var badge: Text?

      enum CodingKeys: String, CodingKey {
        case product, title, detail, badge
        case introDetail = "intro_detail"
      }
    }

    enum CodingKeys: String, CodingKey {
      case type, text, asset, height, features, layout, products, selected
      case introText = "intro_text"
      case termsURL = "terms_url"
      case privacyURL = "privacy_url"
      case termsText = "terms_text"
      case privacyText = "privacy_text"
      case actionId = "action_id"
      case linksPresentation = "links_presentation"
    }
  }

  /// Every block type.
  public static let blockTypes = [
    "image", "title", "subtitle", "text", "features", "products", "purchase_button", "restore_button",
    "custom_button", "legal", "footer",
  ]

  /// What a custom button's `action_id` may be: the app matches on it.
  public static let actionIdPattern = "^[A-Za-z0-9_.-]{1,64}$"

  /// Every colour role each appearance defines.
  public static let colorRoles = ["background", "text", "secondary_text", "accent", "on_accent", "card"]

  /// The product tokens texts may hold.
  public static let tokens = [
    "price", "period", "price_per_week", "price_per_month", "product_title", "intro_offer", "intro_price", "trial_days",
  ]

  /// Tokens that only mean something to a user eligible for an introductory offer: allowed in
  /// `intro_text` and `intro_detail` only.
  public static let introTokens: Set<String> = ["intro_offer", "intro_price", "trial_days"]

  /// `text` with each `{name}` replaced by `value(name)`; a token `value` answers nil for stays
  /// as written. The server's validator and the SDK's resolution read tokens through it.
  public static func replacingTokens(in text: String, _ value: (String) -> String?) -> String {
    guard text.contains("{") else { return text }
    var result = ""
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
      result += rest[..<open]
      result += value(String(rest[rest.index(after: open)..<close])) ?? String(rest[open...close])
      rest = rest[rest.index(after: close)...]
    }
    return result + rest
  }

  /// The SHA-256 of every image a document (as JSON) references, with the reference's path
  /// inside the document (`screen.background.image`, `blocks[2].asset`), in document order.
  /// The importer checks them, the fallback export embeds them, the SDK downloads them.
  public static func assetReferences(in paywall: JSONValue) -> [(path: String, sha256: String)] {
    guard let paywall = paywall.objectValue else { return [] }
    var references: [(path: String, sha256: String)] = []
    if let image = paywall["screen"]?.objectValue?["background"]?.objectValue?["image"]?.stringValue {
      references.append(("screen.background.image", image))
    }
    for (position, block) in (paywall["blocks"]?.arrayValue ?? []).enumerated() {
      if let asset = block.objectValue?["asset"]?.stringValue {
        references.append(("blocks[\(position)].asset", asset))
      }
    }
    return references
  }

  /// The SHA-256 of every image this document references, each once, in document order.
  public var assetHashes: [String] {
    var seen: Set<String> = []
    return ([screen.background.image] + blocks.map(\.asset)).compactMap { $0 }.filter { seen.insert($0).inserted }
  }

  enum CodingKeys: String, CodingKey {
    case version, screen, style, blocks
    case defaultLocale = "default_locale"
  }
}
