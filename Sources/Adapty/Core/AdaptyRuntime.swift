import Foundation
import Synchronization
import TollgateAPI

/// One activated SDK: everything `Adapty`'s static API acts on. The facade holds one per
/// process; tests create several over the same storage directory to simulate relaunches.
final class AdaptyRuntime: Sendable {
  let configuration: AdaptyConfiguration
  let client: BackendClient
  let store: LocalStore
  let broadcaster: ProfileBroadcaster
  let profiles: ProfileManager
  let placements: PlacementManager
  let events: EventQueue
  let purchases: PurchaseManager
  let clock: any SDKClock
  let attribution: AttributionCollector?
  /// The fallback file (process-wide, set with `setFallback(fileURL:)`).
  let fallback: FallbackFlows
  /// Paywall images on disk.
  let assets: PaywallAssetStore
  /// Captured App Store messages (`.manual` handling only).
  let storeMessages: StoreMessageQueue?
  private let background: SendableTaskList

  /// Reads the disk state and publishes the cached profile; network work starts in the
  /// background and never delays activation.
  static func launch(
    _ configuration: AdaptyConfiguration, fallback: FallbackFlows = .shared, delegates: DelegateHolder = .shared
  ) async -> AdaptyRuntime {
    let runtime = AdaptyRuntime(configuration: configuration, fallback: fallback, delegates: delegates)
    await runtime.profiles.publishCached()
    let collects = configuration.dependencies.collectsAttributionAtLaunch
    if collects, let attribution = runtime.attribution {
      // The first launch creates the profile and hands over the token in one request.
      await runtime.profiles.expectAppleAdsToken(Task { await attribution.tokenForCreation() })
    }
    runtime.background.add(
      Task {
        await runtime.syncProfile()
        if collects { await runtime.attribution?.run() }
      })
    await runtime.events.startFlushing()
    await runtime.purchases.start()
    return runtime
  }

  private init(configuration: AdaptyConfiguration, fallback: FallbackFlows, delegates: DelegateHolder) {
    self.configuration = configuration
    let dependencies = configuration.dependencies
    let transport = dependencies.transport ?? URLSessionTransport(baseURL: configuration.backendBaseUrl)
    client = BackendClient(transport: transport, apiKey: configuration.apiKey)
    store = LocalStore(directory: configuration.storageDirectory)
    clock = dependencies.clock
    self.fallback = fallback
    assets = PaywallAssetStore(
      directory: configuration.storageDirectory.appendingPathComponent("paywall-images"), client: client,
      fallback: fallback, clock: clock)
    broadcaster = ProfileBroadcaster(delegates: delegates)
    profiles = ProfileManager(
      client: client, store: store, installInfo: dependencies.installInfo(), broadcaster: broadcaster,
      customerUserId: configuration.customerUserId)
    let races = AttributionRaceBoard()
    placements = PlacementManager(
      client: client, profiles: profiles, cache: FlowCache(store: store), fallback: fallback, clock: clock,
      races: races)
    events = EventQueue(store: store, client: client, clock: clock)
    purchases = PurchaseManager(
      source: dependencies.purchaseSource ?? PurchaseSources.platformDefault, client: client, profiles: profiles,
      store: store, clock: clock, observerMode: configuration.observerMode)
    if let provider = dependencies.resolvedTokenProvider {
      attribution = AttributionCollector(
        provider: provider, client: client, profiles: profiles, store: store, clock: clock, races: races)
    } else {
      attribution = nil
    }
    background = SendableTaskList()
    // Started here, inside activation, so StoreKit never shows a message on its own first.
    if configuration.storeMessagesHandling == .manual,
      let source = dependencies.storeMessageSource ?? StoreMessageSources.available
    {
      let queue = StoreMessageQueue()
      storeMessages = queue
      source.start { message in Task { await queue.add(message) } }
    } else {
      storeMessages = nil
    }
  }

  /// Creates the profile on the server (first launch) or refreshes it (later launches).
  func syncProfile() async {
    do {
      _ = try await profiles.refresh()
    } catch {
      Log.warn("profile sync: \(error.message)")
    }
  }

  /// Records a shown flow.
  func logShow(_ flow: AdaptyFlow) async {
    let profileId = await profiles.profileId
    await events.enqueue(
      EventPayload(
        eventId: UUID().uuidString.lowercased(), profileId: profileId, placementId: flow.placement.id,
        variationId: flow.variationId))
  }

  /// Starts downloading the images of a flow's paywall document, so they are on disk when
  /// `AdaptyUI` presents it.
  func prefetchImages(of flow: AdaptyFlow) async {
    guard let document = flow.paywallDocument else { return }
    await assets.prefetch(PaywallDocument.assetReferences(in: document).map(\.sha256))
  }

  /// Reports what the first launch's attribution race answered with (durably, like events).
  func reportFirstLaunch(_ flow: AdaptyFlow) async {
    let profileId = await profiles.profileId
    await events.enqueue(
      EventPayload(
        eventId: UUID().uuidString.lowercased(), type: EventPayload.firstLaunchFlow, profileId: profileId,
        placementId: flow.placement.id, variationId: flow.variationId, source: flow.source.rawValue))
  }

  /// Stops background work; the disk state stays for the next launch.
  func shutdown() async {
    background.cancelAll()
    await events.stop()
    await purchases.stop()
    await broadcaster.finish()
    await storeMessages?.finish()
  }
}

/// Background tasks to cancel at shutdown.
final class SendableTaskList: Sendable {
  private let tasks = Mutex<[Task<Void, Never>]>([])

  func add(_ task: Task<Void, Never>) { tasks.withLock { $0.append(task) } }

  func cancelAll() {
    for task in tasks.withLock({ $0 }) { task.cancel() }
  }
}
