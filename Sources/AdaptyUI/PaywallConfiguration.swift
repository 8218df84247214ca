import Adapty
import Foundation
import TollgateAPI

extension AdaptyUI {
  /// A flow's paywall ready to present: its document, the store's products, the locale and
  /// the images that could be had. Made by `AdaptyUI.getPaywallConfiguration(forPaywall:…)`.
  public final class PaywallConfiguration: Sendable {
    /// The flow's id.
    public var id: String { flow.id }
    /// The locale the texts are resolved in.
    public let locale: String
    /// The flow presented: purchases are attributed to its variation.
    public let flow: AdaptyFlow
    /// The products, in the flow's order.
    public let products: [AdaptyPaywallProduct]
    let document: PaywallDocument
    let images: [String: Data]
    let commerce: PaywallCommerce
    let clock: any SDKClock
    /// The products as the resolution reads them, made once (views resolve on every draw).
    private let storeProducts: [PaywallStoreProduct]
    private let eligibleForIntro: Bool

    init(
      flow: AdaptyFlow, document: PaywallDocument, products: [AdaptyPaywallProduct], locale: String,
      images: [String: Data], commerce: PaywallCommerce, clock: any SDKClock
    ) {
      self.flow = flow
      self.document = document
      self.products = products
      self.locale = locale
      self.images = images
      self.commerce = commerce
      self.clock = clock
      storeProducts = products.map(PaywallStoreProduct.init)
      // Eligibility is per subscription group; a flow's products share one in practice.
      eligibleForIntro = products.contains { $0.storeProduct.isEligibleForIntroductoryOffer }
    }

    /// The paywall resolved for an appearance (`light`/`dark`) and the selected product.
    func resolve(appearance: String, selected: String?) throws(AdaptyUIError) -> ResolvedPaywall {
      let input = PaywallResolutionInput(
        document: document, products: storeProducts, locale: locale, appearance: appearance,
        eligibleForIntro: eligibleForIntro, selected: selected)
      do throws(PaywallResolution.Failure) {
        return try PaywallResolution.resolve(input)
      } catch {
        switch error {
        case .unsupportedVersion(let version): throw .unsupportedDocumentVersion(version)
        }
      }
    }

    /// An image's bytes; nil when it could not be loaded (the block is drawn without it).
    func image(_ sha256: String?) -> Data? { sha256.flatMap { images[$0] } }

    /// Builds the configuration: the document (the fallback file's when the flow's is newer
    /// than this SDK), the products, the images within `loadTimeout`.
    static func load(
      flow requested: AdaptyFlow, products given: [AdaptyPaywallProduct]?, loadTimeout: TimeInterval?,
      host: AdaptyUIHost, commerce: PaywallCommerce
    ) async throws -> PaywallConfiguration {
      let (flow, document) = try drawable(requested, fallback: host.fallbackFlow)
      let products: [AdaptyPaywallProduct]
      if let given {
        products = given
      } else {
        products = try await host.products(for: flow)
      }
      let images = await host.images(document.assetHashes, timeout: loadTimeout ?? 5)
      let locale = flow.remoteConfig?.locale ?? Locale.preferredLanguages.first ?? document.defaultLocale
      return PaywallConfiguration(
        flow: flow, document: document, products: products, locale: locale, images: images, commerce: commerce,
        clock: host.clock)
    }

    /// The flow and document to draw: `flow`'s own, else (newer than this SDK) the fallback
    /// file's flow for the placement, never half a document.
    static func drawable(
      _ flow: AdaptyFlow, fallback: (_ placementId: String, _ locale: String?) -> AdaptyFlow?
    ) throws -> (AdaptyFlow, PaywallDocument) {
      guard let json = flow.paywallDocument else {
        throw AdaptyError(
          .wrongParam,
          "Flow \(flow.id) has no paywall document (hasViewConfiguration is false): draw it from its remote config, "
            + "or design one in the console's Paywalls page.")
      }
      func versionOf(_ json: JSONValue) -> Int { json.objectValue?["version"]?.numberValue.map(Int.init) ?? 0 }
      let version = versionOf(json)
      guard version <= PaywallDocument.supportedVersion else {
        if let older = fallback(flow.placement.id, flow.remoteConfig?.locale),
          let olderJSON = older.paywallDocument, versionOf(olderJSON) <= PaywallDocument.supportedVersion
        {
          Log.warn("paywall document version \(version) is newer than this SDK; showing the fallback file's")
          return (older, try decode(olderJSON))
        }
        throw AdaptyUIError.unsupportedDocumentVersion(version)
      }
      return (flow, try decode(json))
    }

    private static func decode(_ json: JSONValue) throws(AdaptyUIError) -> PaywallDocument {
      do {
        return try WireCoding.decoder.decode(PaywallDocument.self, from: WireCoding.encode(json))
      } catch {
        throw .wrongComponentType("\(error)")
      }
    }
  }
}

/// What the paywall asks of the SDK; the live one calls `Adapty`, tests pass fakes.
struct PaywallCommerce: Sendable {
  var purchase: @Sendable (AdaptyPaywallProduct) async throws(AdaptyError) -> AdaptyPurchaseResult
  var restore: @Sendable () async throws(AdaptyError) -> AdaptyProfile
  var logShow: @Sendable (AdaptyFlow) async -> Void

  /// `makePurchase`, `restorePurchases` and `logShowFlow` of the activated SDK.
  static func live(_ host: AdaptyUIHost) -> PaywallCommerce {
    PaywallCommerce(
      purchase: { product throws(AdaptyError) in try await host.purchase(product) },
      restore: { () throws(AdaptyError) in try await host.restore() },
      logShow: { flow in await host.logShow(flow) })
  }
}

extension PaywallStoreProduct {
  /// The store's description of a flow product, as the resolution reads it.
  init(_ product: AdaptyPaywallProduct) {
    self.init(
      id: product.vendorProductId, title: product.localizedTitle, price: "\(product.price)",
      displayPrice: product.localizedPrice ?? "\(product.price)",
      period: product.subscriptionPeriod.flatMap { Self.iso($0, times: 1) },
      intro: product.introductoryDiscount.flatMap { offer in
        Self.iso(offer.subscriptionPeriod, times: offer.numberOfPeriods).map {
          Intro(kind: offer.paymentMode.rawValue, period: $0, displayPrice: offer.localizedPrice)
        }
      })
  }

  /// `P1M` for one month; nil for an unknown unit.
  static func iso(_ period: AdaptySubscriptionPeriod, times: Int) -> String? {
    let units: [AdaptyPeriodUnit: String] = [.day: "D", .week: "W", .month: "M", .year: "Y"]
    return units[period.unit].map { "P\(period.numberOfUnits * max(times, 1))\($0)" }
  }
}
