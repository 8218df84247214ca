import Adapty
import Foundation
import TollgateAPI

extension AdaptyUI {
  /// A flow's paywall ready to present: its document, the store's products (or why they
  /// could not be had), the locale, the images that could be had and the app's resolvers.
  /// Made by `AdaptyUI.getPaywallConfiguration(forPaywall:…)`.
  public final class PaywallConfiguration: Sendable {
    /// The flow's id.
    public var id: String { flow.id }
    /// The locale the texts are resolved in.
    public let locale: String
    /// Whether the locale is written right to left.
    public var isRightToLeft: Bool {
      let language = String(locale.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
      return ["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ku"].contains(language.lowercased())
    }
    /// The flow presented: purchases are attributed to its variation.
    public let flow: AdaptyFlow
    /// The products loaded when the configuration was made, in the flow's order (the
    /// presented paywall loads them again when they failed and its handler asks to).
    public let products: [AdaptyPaywallProduct]
    /// Why the products could not be loaded; nil when they were.
    let productsError: AdaptyError?
    let document: PaywallDocument
    let images: [String: Data]
    let commerce: PaywallCommerce
    let clock: any SDKClock
    /// The app buys and restores itself; nil: `makePurchase` and `restorePurchases`.
    let observerModeResolver: (any AdaptyObserverModeResolver)?
    /// Accepted for Adapty's shape: Tollgate's documents have no custom tags yet.
    let tagResolver: (any AdaptyUITagResolver)?
    /// Accepted for Adapty's shape (see their protocols).
    let timerResolver: (any AdaptyUITimerResolver)?
    let assetsResolver: (any AdaptyUIAssetsResolver)?
    let systemRequestsHandler: (any AdaptyUISystemRequestsHandler)?

    init(
      flow: AdaptyFlow, document: PaywallDocument, products: [AdaptyPaywallProduct], productsError: AdaptyError? = nil,
      locale: String, images: [String: Data], commerce: PaywallCommerce, clock: any SDKClock,
      resolvers: Resolvers = Resolvers()
    ) {
      self.flow = flow
      self.document = document
      self.products = products
      self.productsError = productsError
      self.locale = locale
      self.images = images
      self.commerce = commerce
      self.clock = clock
      observerModeResolver = resolvers.observerMode
      tagResolver = resolvers.tags
      timerResolver = resolvers.timers
      assetsResolver = resolvers.assets
      systemRequestsHandler = resolvers.systemRequests
    }

    /// The app's resolvers, as `getPaywallConfiguration` takes them.
    struct Resolvers {
      var observerMode: (any AdaptyObserverModeResolver)?
      var tags: (any AdaptyUITagResolver)?
      var timers: (any AdaptyUITimerResolver)?
      var assets: (any AdaptyUIAssetsResolver)?
      var systemRequests: (any AdaptyUISystemRequestsHandler)?
    }

    /// The flow's product ids the store did not know (a partial load).
    func missingProductIds(in products: [AdaptyPaywallProduct]) -> [String] {
      let loaded = Set(products.map(\.vendorProductId))
      return flow.vendorProductIds.filter { !loaded.contains($0) }
    }

    /// The paywall resolved for an appearance (`light`/`dark`), the products as loaded and
    /// the selected product.
    func resolve(appearance: String, products: PaywallProducts, selected: String?) throws(AdaptyUIError)
      -> ResolvedPaywall
    {
      let input = PaywallResolutionInput(
        document: document, products: products.store, locale: locale, appearance: appearance,
        eligibleForIntro: products.eligibleForIntro, selected: selected)
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
    /// than this SDK), the products (their failure kept for the paywall to report and retry),
    /// the images within `loadTimeout`.
    static func load(
      flow requested: AdaptyFlow, products given: [AdaptyPaywallProduct]?, loadTimeout: TimeInterval?,
      locale requestedLocale: String? = nil, host: AdaptyUIHost, commerce: PaywallCommerce,
      resolvers: Resolvers = Resolvers()
    ) async throws -> PaywallConfiguration {
      let (flow, document) = try drawable(requested, fallback: host.fallbackFlow)
      var products: [AdaptyPaywallProduct] = given ?? []
      var productsError: AdaptyError?
      if given == nil {
        do throws(AdaptyError) {
          products = try await commerce.products(flow)
        } catch {
          productsError = error
        }
      }
      let images = await host.images(document.assetHashes, timeout: loadTimeout ?? 5)
      let locale =
        requestedLocale ?? flow.remoteConfig?.locale ?? Locale.preferredLanguages.first ?? document.defaultLocale
      return PaywallConfiguration(
        flow: flow, document: document, products: products, productsError: productsError, locale: locale,
        images: images, commerce: commerce, clock: host.clock, resolvers: resolvers)
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

/// The products as the resolution reads them, made once per load (views resolve on every draw).
struct PaywallProducts: Sendable {
  let all: [AdaptyPaywallProduct]
  let store: [PaywallStoreProduct]
  let eligibleForIntro: Bool

  init(_ products: [AdaptyPaywallProduct]) {
    all = products
    store = products.map(PaywallStoreProduct.init)
    // Eligibility is per subscription group; a flow's products share one in practice.
    eligibleForIntro = products.contains { $0.storeProduct.isEligibleForIntroductoryOffer }
  }
}

/// What the paywall asks of the SDK; the live one calls `Adapty`, tests pass fakes.
struct PaywallCommerce: Sendable {
  var products: @Sendable (AdaptyFlow) async throws(AdaptyError) -> [AdaptyPaywallProduct]
  var purchase: @Sendable (AdaptyPaywallProduct) async throws(AdaptyError) -> AdaptyPurchaseResult
  var restore: @Sendable () async throws(AdaptyError) -> AdaptyProfile
  var logShow: @Sendable (AdaptyFlow) async -> Void

  /// `makePurchase`, `restorePurchases` and `logShowFlow` of the activated SDK.
  static func live(_ host: AdaptyUIHost) -> PaywallCommerce {
    PaywallCommerce(
      products: { flow throws(AdaptyError) in try await host.products(for: flow) },
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
