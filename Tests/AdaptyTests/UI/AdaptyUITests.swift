import Foundation
import Synchronization
import Testing
import TollgateAPI

@testable import Adapty
@testable import AdaptyUI

/// `AdaptyUI` without UIKit: the configuration (document, products, images), the session the
/// views drive (selection, purchase, restore, close button, impression) and the image cache.
@Suite("AdaptyUI")
struct AdaptyUITests {
  static let image = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

  static func flow(document: JSONValue?, placement: String = "onboarding") -> AdaptyFlow {
    AdaptyFlow(
      placement: AdaptyPlacement(id: placement, revision: 3, audienceName: "All Users", abTestName: nil),
      id: "designed", name: "Designed", variationId: "\(placement):default:designed", remoteConfig: nil,
      vendorProductIds: ["pro_annual", "pro_monthly"], source: .segmented, paywallDocument: document)
  }

  static func products(for flow: AdaptyFlow, eligible: Bool = true) -> [AdaptyPaywallProduct] {
    let trial = AdaptyProductDiscount(
      paymentMode: .freeTrial, price: 0, localizedPrice: "$0.00",
      subscriptionPeriod: .init(unit: .day, numberOfUnits: 7), numberOfPeriods: 1)
    return [
      AdaptyStoreProduct(
        id: "pro_annual", displayName: "Pro Annual", description: "", price: Decimal(string: "39.99")!,
        displayPrice: "$39.99", currencyCode: "USD", subscriptionPeriod: .init(unit: .year, numberOfUnits: 1),
        introductoryDiscount: trial, isEligibleForIntroductoryOffer: eligible),
      AdaptyStoreProduct(
        id: "pro_monthly", displayName: "Pro Monthly", description: "", price: Decimal(string: "6.99")!,
        displayPrice: "$6.99", currencyCode: "USD", subscriptionPeriod: .init(unit: .month, numberOfUnits: 1)),
    ].enumerated().map { FlowProduct($0.element, flow: flow, index: $0.offset) }
  }

  /// What the fake SDK was asked to do.
  final class Calls: Sendable {
    static let profile = AdaptyProfile(Wire.profile("p1"))
    let purchases = Mutex<[(String, String)]>([])
    let impressions = Mutex<[String]>([])
    /// The session's events, described.
    let events = Mutex<[String]>([])
    let outcome = Mutex<Result<Bool, AdaptyError>>(.success(true))
    /// What each product load answers, in turn (the flow's products once they run out).
    let productLoads = Mutex<[Result<[String], AdaptyError>]>([])
    let loadCount = Mutex(0)

    var commerce: PaywallCommerce {
      PaywallCommerce(
        products: { flow throws(AdaptyError) in
          self.loadCount.withLock { $0 += 1 }
          let next = self.productLoads.withLock { $0.isEmpty ? nil : $0.removeFirst() }
          let all = AdaptyUITests.products(for: flow)
          switch next {
          case nil: return all
          case .success(let ids)?: return all.filter { ids.contains($0.vendorProductId) }
          case .failure(let error)?: throw error
          }
        },
        purchase: { product throws(AdaptyError) in
          self.purchases.withLock { $0.append((product.vendorProductId, product.variationId)) }
          switch self.outcome.withLock({ $0 }) {
          case .success(true):
            return .success(
              profile: Self.profile,
              transaction: AdaptyPurchasedTransaction(
                storeTransaction: .init(id: "1", originalId: "1", productId: product.vendorProductId, jws: "")))
          case .success(false): return .userCancelled
          case .failure(let error): throw error
          }
        },
        restore: { () throws(AdaptyError) in
          if case .failure(let error) = self.outcome.withLock({ $0 }) { throw error }
          return Self.profile
        },
        logShow: { flow in self.impressions.withLock { $0.append(flow.variationId) } })
    }
  }

  @MainActor
  static func session(
    _ harness: Harness, runtime: AdaptyRuntime, calls: Calls, document: JSONValue? = nil,
    loadsProducts: Bool = false, observer: (any AdaptyObserverModeResolver)? = nil,
    retry: @escaping (AdaptyError) -> Bool = { _ in false }
  ) async throws -> PaywallSession {
    let flow = flow(document: try document ?? PaywallDocumentFlowTests.document())
    let configuration = try await AdaptyUI.PaywallConfiguration.load(
      flow: flow, products: loadsProducts ? nil : products(for: flow), loadTimeout: 1, host: AdaptyUIHost(runtime),
      commerce: calls.commerce, resolvers: .init(observerMode: observer))
    return PaywallSession(configuration: configuration, retryLoadingProducts: retry) { event in
      calls.events.withLock { $0.append("\(event)") }
    }
  }

  @Test("products that fail to load are reported on appear; a handler that says yes gets them loaded again, 2 s later")
  @MainActor
  func productsFailure() async throws {
    let harness = Harness()
    harness.transport.respond { _ in HTTPResponse(status: 503) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    let failure = AdaptyError(.productRequestFailed, "The App Store did not answer for products")
    calls.productLoads.withLock { $0 = [.failure(failure), .failure(failure)] }
    let asked = Mutex(0)
    let session = try await Self.session(
      harness, runtime: runtime, calls: calls, loadsProducts: true,
      retry: { error in
        #expect(error.adaptyErrorCode == .productRequestFailed)
        return asked.withLock {
          $0 += 1; return $0 < 3
        }
      })
    #expect(session.productsError != nil && session.products.all.isEmpty)
    #expect(session.resolved(appearance: "light") != nil, "a paywall without products still draws")
    session.appeared()
    #expect(asked.withLock { $0 } == 1)
    // The second load fails too: asked again; the third (the flow's products) succeeds.
    #expect(await eventually { harness.clock.sleptDurations.contains(PaywallSession.productsRetryDelay) })
    harness.clock.advance(by: 2)
    await session.productsReload?.value
    #expect(await eventually { asked.withLock { $0 } == 2 })
    await harness.clock.sleepers(atLeast: 1)
    harness.clock.advance(by: 2)
    #expect(await eventually { session.productsError == nil })
    #expect(session.products.all.map(\.vendorProductId) == ["pro_annual", "pro_monthly"])
    #expect(calls.loadCount.withLock { $0 } == 3)
  }

  @Test("a handler that says no leaves the products failed: nothing is loaded again")
  @MainActor
  func productsFailureNoRetry() async throws {
    let harness = Harness()
    harness.transport.respond { _ in HTTPResponse(status: 503) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    calls.productLoads.withLock { $0 = [.failure(AdaptyError(.productRequestFailed, "down"))] }
    let session = try await Self.session(harness, runtime: runtime, calls: calls, loadsProducts: true)
    session.appeared()
    #expect(session.productsReload == nil && calls.loadCount.withLock { $0 } == 1)
    await session.purchase()
    #expect(calls.purchases.withLock { $0.isEmpty }, "no product, no purchase")
  }

  @Test("a partial load names the product ids the store did not know, once")
  @MainActor
  func partialProducts() async throws {
    let harness = Harness()
    harness.transport.respond { _ in HTTPResponse(status: 503) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    calls.productLoads.withLock { $0 = [.success(["pro_annual"])] }
    let session = try await Self.session(harness, runtime: runtime, calls: calls, loadsProducts: true)
    session.appeared()
    session.appeared()
    #expect(
      calls.events.withLock { $0.filter { $0.hasPrefix("products") } } == [
        "products partially loaded, missing pro_monthly"
      ])
  }

  /// An app that buys and restores with its own code.
  final class Observer: AdaptyObserverModeResolver {
    let calls = Mutex<[String]>([])
    let finish = Mutex<(@MainActor @Sendable () -> Void)?>(nil)

    func observerMode(
      didInitiatePurchase product: AdaptyPaywallProduct, onStartPurchase: @MainActor @Sendable @escaping () -> Void,
      onFinishPurchase: @MainActor @Sendable @escaping () -> Void
    ) {
      calls.withLock { $0.append("buy \(product.vendorProductId) \(product.variationId)") }
      Task { @MainActor in onStartPurchase() }
      finish.withLock { $0 = onFinishPurchase }
    }

    func observerModeDidInitiateRestorePurchases(
      onStartRestore: @MainActor @Sendable @escaping () -> Void,
      onFinishRestore: @MainActor @Sendable @escaping () -> Void
    ) {
      calls.withLock { $0.append("restore") }
      Task { @MainActor in
        onStartRestore()
        onFinishRestore()
      }
    }
  }

  @Test(
    "observer mode: the buttons call the app's code, never makePurchase or restorePurchases; progress between its callbacks"
  )
  @MainActor
  func observerMode() async throws {
    let harness = Harness()
    harness.transport.respond { _ in HTTPResponse(status: 503) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    let observer = Observer()
    let session = try await Self.session(harness, runtime: runtime, calls: calls, observer: observer)
    _ = session.resolved(appearance: "light")
    await session.purchase()
    #expect(await eventually { session.isPurchasing })
    let finish = try #require(observer.finish.withLock { $0 })
    finish()
    #expect(!session.isPurchasing)
    await session.restore()
    #expect(await eventually { observer.calls.withLock { $0.count } == 2 })
    #expect(observer.calls.withLock { $0 } == ["buy pro_annual onboarding:default:designed", "restore"])
    #expect(calls.purchases.withLock { $0.isEmpty })
    #expect(!calls.events.withLock { $0 }.contains { $0.hasPrefix("purchase") || $0.hasPrefix("restore") })
  }

  @Test(
    "a link opens as the document says (in the app, or by default in the browser); a custom button hands the app its action id"
  )
  @MainActor
  func linkPresentation() async throws {
    let harness = Harness()
    harness.transport.respond { _ in HTTPResponse(status: 503) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    let session = try await Self.session(harness, runtime: runtime, calls: calls)
    session.open("https://example.com/terms")
    session.open("https://example.com/privacy", presentation: "in_app")
    session.custom("login")
    session.custom("")
    #expect(
      calls.events.withLock { $0 } == [
        "open https://example.com/terms", "open https://example.com/privacy in app", "custom login",
      ])
  }

  @Test("the session resolves the document with the store's prices, selects, and buys with the flow's variation")
  @MainActor
  func purchase() async throws {
    let harness = Harness()
    harness.transport.respond { _ in HTTPResponse(status: 503) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    let session = try await Self.session(harness, runtime: runtime, calls: calls)
    let tree = try #require(session.resolved(appearance: "dark"))
    #expect(tree.appearance == "dark")
    let picker = try #require(tree.blocks.first { $0.type == "products" }?.products)
    #expect(picker.map(\.id) == ["pro_annual", "pro_monthly"] && picker[0].selected)
    // Eligible for the trial: the intro texts.
    #expect(picker[0].detail == "7 days free, then $39.99 per year")
    #expect(tree.blocks.first { $0.type == "purchase_button" }?.text == "Start 7-day free trial")

    session.select("pro_monthly")
    session.select("pro_monthly")
    session.select("not_in_the_flow")
    #expect(
      session.resolved(appearance: "light")?.blocks.first { $0.type == "products" }?.products?[1].selected == true)
    await session.purchase()
    calls.outcome.withLock { $0 = .success(false) }
    await session.purchase()
    calls.outcome.withLock { $0 = .failure(AdaptyError(.productPurchaseFailed, "refused")) }
    await session.purchase()
    #expect(calls.purchases.withLock { $0.map(\.0) } == ["pro_monthly", "pro_monthly", "pro_monthly"])
    #expect(calls.purchases.withLock { $0.allSatisfy { $0.1 == "onboarding:default:designed" } })
    #expect(
      calls.events.withLock { $0 } == [
        "selected pro_monthly",
        "purchase started pro_monthly", "purchase finished pro_monthly success",
        "purchase started pro_monthly", "purchase finished pro_monthly cancelled",
        "purchase started pro_monthly", "purchase failed pro_monthly 1006",
      ])
    #expect(!session.isPurchasing)
  }

  @Test("restore, close and legal links become actions; the impression is recorded once per presentation")
  @MainActor
  func actions() async throws {
    let harness = Harness()
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    let session = try await Self.session(harness, runtime: runtime, calls: calls)
    session.appeared()
    session.appeared()
    #expect(await eventually { calls.impressions.withLock { $0 } == ["onboarding:default:designed"] })
    await session.restore()
    calls.outcome.withLock { $0 = .failure(AdaptyError(.networkFailed, "offline")) }
    await session.restore()
    let legal = try #require(session.resolved(appearance: "light")?.blocks.first { $0.type == "legal" }?.links)
    session.open(legal[0].url)
    session.close()
    session.disappeared()
    #expect(
      calls.events.withLock { $0 } == [
        "appeared", "appeared", "restore started", "restore finished", "restore started", "restore failed 2005",
        "open \(legal[0].url)", "close", "disappeared",
      ])
    #expect(calls.impressions.withLock { $0.count } == 1)
  }

  @Test("the close button appears after its delay, on the injected clock")
  @MainActor
  func closeButtonDelay() async throws {
    let harness = Harness()
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    var document = try PaywallDocumentFlowTests.document()
    guard case .object(var root) = document, case .object(var screen)? = root["screen"] else {
      Issue.record("the fixture has no screen")
      return
    }
    screen["close_button"] = .object(["position": .string("top_left"), "delay_ms": .int(3000)])
    root["screen"] = .object(screen)
    document = .object(root)
    let session = try await Self.session(harness, runtime: runtime, calls: Calls(), document: document)
    #expect(!session.isCloseButtonVisible)
    let changed = Mutex(0)
    session.onChange = { changed.withLock { $0 += 1 } }
    session.appeared()
    #expect(await eventually { harness.clock.sleptDurations.contains(3) })
    #expect(!session.isCloseButtonVisible)
    harness.clock.advance(by: 3)
    #expect(await eventually { session.isCloseButtonVisible })
    #expect(changed.withLock { $0 } == 1)
  }

  @Test(
    "a flow without a document is AdaptyError wrongParam (as Adapty's); one newer than the SDK with no fallback is AdaptyUIError.unsupportedTemplate (4100)"
  )
  func undrawable() throws {
    let fallback = FallbackFlows()
    #expect(!Self.flow(document: nil).hasViewConfiguration)
    let missing = #expect(throws: AdaptyError.self) {
      try AdaptyUI.PaywallConfiguration.drawable(Self.flow(document: nil), fallback: fallback.flow)
    }
    #expect(missing?.adaptyErrorCode == .wrongParam)
    #expect(AdaptyUIError.unsupportedDocumentVersion(2).errorCode == 4100)
    #expect(AdaptyUIError.errorDomain == "AdaptyUIErrorDomain")
    let newer = JSONValue.object(["version": .int(2), "whatever": .string("comes next")])
    #expect(throws: AdaptyUIError.unsupportedDocumentVersion(2)) {
      try AdaptyUI.PaywallConfiguration.drawable(Self.flow(document: newer), fallback: fallback.flow)
    }
    #expect(throws: AdaptyUIError.self) {
      try AdaptyUI.PaywallConfiguration.drawable(
        Self.flow(document: .object(["version": .int(1)])), fallback: fallback.flow)
    }
  }

  @Test("a document newer than the SDK is replaced by the fallback file's, never drawn in half")
  func newerFallsBack() throws {
    let fallback = try PaywallDocumentFlowTests.fallback(
      flow: "bundled", paywall: try PaywallDocumentFlowTests.document())
    let newer = JSONValue.object(["version": .int(2)])
    let (flow, drawn) = try AdaptyUI.PaywallConfiguration.drawable(Self.flow(document: newer), fallback: fallback.flow)
    #expect(flow.id == "bundled" && flow.variationId == "onboarding:default:bundled" && drawn.version == 1)
  }

  @Test("images: downloaded once and kept on disk, absent when the server cannot give them, embedded in the fallback")
  func images() async throws {
    let harness = Harness()
    let png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
    let served = Mutex(true)
    harness.transport.respond { request in
      guard request.path == "/v1/assets/\(Self.image)", served.withLock({ $0 }) else {
        return HTTPResponse(status: 404, body: Data(#"{"error":{"code":"asset_not_found","message":"no"}}"#.utf8))
      }
      return HTTPResponse(status: 200, headers: ["Content-Type": "image/png"], body: png)
    }
    let runtime = await harness.launch()
    let missing = String(repeating: "a", count: 64)
    let loaded = await runtime.assets.load([Self.image, missing, "../../etc/passwd"], timeout: 5)
    #expect(loaded == [Self.image: png])
    #expect(harness.transport.requests(to: "/v1/assets/\(Self.image)").count == 1)
    #expect(!harness.transport.requests.contains { $0.path.contains("passwd") })
    await runtime.shutdown()

    // The next launch reads the disk, even with the server gone.
    served.withLock { $0 = false }
    let again = await harness.launch()
    #expect(await again.assets.load([Self.image], timeout: 5) == [Self.image: png])
    #expect(harness.transport.requests(to: "/v1/assets/\(Self.image)").count == 1)
    // An image only the fallback file has.
    let embedded = String(repeating: "b", count: 64)
    let file = FallbackFile(
      formatVersion: 1, revision: 1, generatedAt: "2026-11-30T00:00:00.000Z", placements: [],
      assets: [embedded: Data("jpeg bytes".utf8).base64EncodedString()])
    let url = harness.file("fallback.json")
    try WireCoding.encode(file).write(to: url)
    try harness.fallback.load(from: url)
    #expect(await again.assets.load([embedded], timeout: 5) == [embedded: Data("jpeg bytes".utf8)])
    await again.shutdown()
  }

  @Test("a slow image server does not hold the paywall past loadTimeout; the image lands on disk afterwards")
  func slowImages() async throws {
    let harness = Harness()
    let png = Data([0x89, 0x50, 0x4E, 0x47])
    harness.transport.respond { _ in HTTPResponse(status: 200, body: png) }
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    harness.transport.hold()
    let loading = Task { await runtime.assets.load([Self.image], timeout: 2) }
    await harness.transport.held(atLeast: 1)
    #expect(await eventually { harness.clock.sleptDurations.contains(2) })
    harness.clock.advance(by: 2)
    #expect(await loading.value == [:])
    harness.transport.release()
    #expect(await eventually { await runtime.assets.localData(sha256: Self.image) == png })
  }
}

extension AdaptyUITests {
  @Test("colours: a role of the appearance or a hex value, as the views draw them")
  func colours() throws {
    let input = try WireCoding.decoder.decode(
      PaywallResolutionInput.self,
      from: WireCoding.encode(
        try #require(
          WireCoding.decoder.decode(
            JSONValue.self,
            from: Data(
              contentsOf: PaywallConformanceTests.directory.appendingPathComponent("02-french-dark.json"))
          ).objectValue?["input"])))
    let tree = try PaywallResolution.resolve(input)
    let accent = try #require(tree.colors["accent"])
    let rgb = try #require(tree.rgb("accent"))
    let value = Int(accent.dropFirst(), radix: 16)!
    #expect(rgb.red == Double(value >> 16) / 255 && rgb.blue == Double(value & 0xFF) / 255)
    #expect(tree.rgb("#FF8000").map { [$0.red, $0.green, $0.blue] } == [1, 128.0 / 255, 0])
    #expect(tree.rgb("no_such_role") == nil && tree.rgb("#12345") == nil && tree.rgb(nil) == nil)
  }
}

extension AdaptyUITests {
  @Test("a document the SDK cannot draw is reported once as renderingFailed, however often the view draws")
  @MainActor
  func renderingFailedOnce() async throws {
    let harness = Harness()
    let runtime = await harness.launch()
    defer { Task { await runtime.shutdown() } }
    let calls = Calls()
    let flow = Self.flow(document: try PaywallDocumentFlowTests.document())
    var document = try WireCoding.decoder.decode(
      PaywallDocument.self, from: WireCoding.encode(try PaywallDocumentFlowTests.document()))
    document.version = PaywallDocument.supportedVersion + 1
    let configuration = AdaptyUI.PaywallConfiguration(
      flow: flow, document: document, products: Self.products(for: flow), locale: "en", images: [:],
      commerce: calls.commerce, clock: harness.clock)
    let session = PaywallSession(configuration: configuration) { event in
      calls.events.withLock { $0.append("\(event)") }
    }
    #expect(session.resolved(appearance: "light") == nil && session.resolved(appearance: "dark") == nil)
    #expect(calls.events.withLock { $0 } == ["rendering failed \(AdaptyUIError.unsupportedDocumentVersion(2))"])
  }
}
