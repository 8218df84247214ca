import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The Tollgate HTTP API as a pure function of a request: the composition root, the one place
/// that knows every type. It gives each service the repositories it uses (the profile cache's
/// for profiles and assignments when there is one, the database's for the rest), builds the
/// controllers (the HTTP edge) of every
/// feature, registers their routes, and builds the one responder around the router — every
/// answer timed and counted, the console's files mounted at `/dashboard`, rate limits guarding
/// matched routes, errors becoming JSON answers in one place. It holds no socket, so tests call `handle(_:)` directly or through a
/// real `HTTPServer`.
public final class Service: Sendable {
  /// Every route; built once.
  public let router: Router
  /// Resolves Apple Ads tokens in the background.
  public let attribution: AttributionWorker
  /// Delivers the webhook outbox.
  public let webhooks: WebhookWorker
  /// Imports Apple Ads spend in the background.
  public let spendImporter: SpendImporter
  /// Recovers App Store notifications Apple could not deliver, in the background.
  public let recovery: NotificationRecovery
  /// Answers Apple's refund requests, in the background.
  public let refundAnswers: RefundRequestAnswerer
  /// Fetches imported customers' histories from Apple, in the background.
  public let historyImporter: HistoryImporter
  /// Routes whose bodies are streamed into the route instead of collected.
  public let streamedRoutes: [StreamedBodyRoute]
  /// Deletes raw flow views past the retention (nil: kept forever).
  public let eventRetention: EventRetention?
  /// Forgets stale console sessions, failure counts and invitations.
  public let peopleCleanup: PeopleCleanup
  /// Long polls waiting for a profile to change.
  let waits: ProfileWaits
  private let configs: ConfigCache
  /// The whole answer to a request (what `HTTPServer` calls).
  package let responder: RoutingResponder

  /// Wires every feature over `store`.
  public init(store: OpenedStore, configuration: ServerConfiguration = ServerConfiguration()) {
    let time = configuration.time
    let logger = configuration.logger
    let database = store.database
    let configs = ConfigCache(apps: database, documents: database, savedLists: database)
    let waits = ProfileWaits()
    let metrics = Metrics()
    let errors = ErrorMapping(logger: logger)
    let twoFactor = TwoFactorService(
      people: database, hasher: configuration.passwordHasher, secrets: configuration.secrets, time: time)
    let sessions = ConsoleSessions(
      people: database, hasher: configuration.passwordHasher, throttle: configuration.signInThrottle,
      policy: configuration.sessionPolicy, twoFactor: twoFactor, time: time)
    let consoleOrigin = configuration.publicURL.map { Authenticator.origin(of: $0).lowercased() }
    let auth = Authenticator(
      keys: KeyVerifier(apps: database, time: time), sessions: sessions, people: database,
      consoleOrigin: consoleOrigin, trustedProxies: configuration.rateLimits.trustedProxies)
    let limits = (try? configuration.rateLimits.parsed()) ?? RateLimits().parsedDefaults
    let limiter = RateLimiter(time: time)
    let currentConfig: @Sendable (Int64) -> CompiledConfig? = { appId in (try? configs.entry(appId: appId))??.config }
    let webhooks = WebhookWorker(
      outbox: database, time: time, logger: logger, secrets: configuration.secrets, sender: configuration.webhookSender,
      webhooks: { currentConfig($0)?.webhooks ?? [] })
    let attribution = AttributionWorker(
      attributionJobs: database, apple: configuration.apple, time: time, logger: logger,
      policy: configuration.attributionPolicy, maxQueue: configuration.attributionQueueLimit,
      allowsTestAttribution: { currentConfig($0)?.allowTestAttribution ?? false },
      webhooks: { currentConfig($0)?.webhooks ?? [] },
      onChange: { profile, appId in waits.changed(.init(appId: appId, profileId: profile.id)) })
    let spendImporter = SpendImporter(
      spend: database, api: configuration.campaignManagement, secrets: configuration.secrets, time: time,
      logger: logger,
      policy: configuration.spendImportPolicy, settings: { currentConfig($0)?.appleAdsAPI },
      webhooks: { currentConfig($0)?.webhooks ?? [] })

    // The rules.
    let profiles = ProfileService(
      profileRecords: store.profiles, assignments: store.assignments, eventLog: database, purchases: database,
      views: store.targetingViews, configs: configs, time: time,
      changed: { changed, appId in
        for profile in changed { waits.changed(.init(appId: appId, profileId: profile.id)) }
      })
    let attributionService = AttributionService(
      profileRecords: store.profiles, attributionJobs: database, worker: attribution, limiter: limiter, limits: limits,
      time: time)
    let placements = PlacementService(
      assignments: store.assignments, assetFiles: database, configs: configs, time: time, logger: logger)
    let refundAnswers = RefundRequestAnswerer(
      store: database, purchases: database, api: configuration.appStoreServerAPI, secrets: configuration.secrets,
      time: time, logger: logger, settings: { currentConfig($0)?.appStore })
    let purchases = PurchaseService(
      apps: database, purchases: database, configs: configs, verifier: configuration.appStoreVerifier,
      profiles: profiles,
      webhooks: webhooks, time: time, logger: logger, refundAnswers: refundAnswers)
    let recorded: @Sendable (Int64, String) throws -> Bool = { appId, signedTransaction in
      guard let app = try database.app(id: appId) else {
        throw DomainError.notFound(.appNotFound, "No app with id \(appId).")
      }
      return try purchases.record(reconciled: signedTransaction, app: app)
    }
    let historyImporter = HistoryImporter(
      imports: database, keys: database, api: configuration.appStoreServerAPI, secrets: configuration.secrets,
      time: time, logger: logger, settings: { currentConfig($0)?.appStore },
      record: { appId, pages in try purchases.record(imported: pages, appId: appId) })
    let refresher = HistoryRefresher(
      store: database, purchases: database, api: configuration.appStoreServerAPI, secrets: configuration.secrets,
      time: time, logger: logger, settings: { currentConfig($0)?.appStore }, record: recorded)
    let events = EventService(eventLog: database, configs: configs, profiles: profiles, time: time)
    let recovery = NotificationRecovery(
      store: database, api: configuration.appStoreServerAPI, secrets: configuration.secrets, time: time,
      logger: logger, policy: configuration.recoveryPolicy, settings: { currentConfig($0)?.appStore },
      apply: { appId, signedPayload in
        guard let app = try database.app(id: appId) else {
          throw DomainError.notFound(.appNotFound, "No app with id \(appId).")
        }
        let ack = try purchases.record(
          AppStoreNotificationRequest(signedPayload: signedPayload), app: app, origin: "recovered")
        return ack.duplicate ? .known : .applied
      },
      reconcile: recorded, refresher: refresher)

    // The HTTP edge, one controller per resource.
    var router = Router()
    OperationsController(
      operations: OperationsService(
        apps: database, attributionJobs: database, cache: store.cache, attribution: attribution,
        intake: attributionService.intake, webhooks: webhooks,
        logger: logger),
      metrics: metrics, waits: waits
    ).register(on: &router)
    ProfilesController(
      auth: auth, profiles: profiles, attribution: attributionService, waits: waits, errors: errors,
      maxWaitSeconds: configuration.maxWaitSeconds
    ).register(on: &router)
    PlacementsController(
      auth: auth, placements: placements, profiles: profiles, waits: waits, errors: errors,
      maxWaitSeconds: configuration.maxWaitSeconds, defaultMaxAge: configuration.defaultMaxAge
    ).register(on: &router)
    EventsController(auth: auth, events: events).register(on: &router)
    AttributionController(
      auth: auth, attribution: attributionService, profiles: profiles, waits: waits, errors: errors,
      budget: configuration.attributionBudget
    ).register(on: &router)
    PurchasesController(auth: auth, purchases: purchases).register(on: &router)
    WebhooksController(
      auth: auth,
      webhooks: WebhookAdminService(
        apps: database, outbox: database, configs: configs, secrets: configuration.secrets, worker: webhooks, time: time
      )
    ).register(on: &router)
    ConfigController(
      auth: auth,
      config: ConfigService(
        importer: ConfigImporter(
          apps: database, documents: database, outbox: database, assetFiles: database, savedLists: database, time: time,
          secrets: configuration.secrets),
        apps: database, documents: database, configs: configs, time: time, logger: logger)
    ).register(on: &router)
    AdminProfilesController(auth: auth, profiles: profiles).register(on: &router)
    StatsController(
      auth: auth,
      stats: StatsService(
        apps: database, attributionJobs: database,
        reports: ReportSource(analytics: database, spend: database, replica: configuration.readReplica, time: time),
        configs: configs, attribution: attribution, time: time),
      metrics: metrics
    ).register(on: &router)
    KeysController(
      auth: auth, keys: KeyService(issuer: KeyIssuer(apps: database, time: time), apps: database, time: time)
    ).register(on: &router)
    AssetsController(auth: auth, assets: AssetService(apps: database, assetFiles: database, time: time)).register(
      on: &router)
    ListsController(
      auth: auth,
      lists: SavedListService(
        apps: database, documents: database, savedLists: database, time: time, changed: { try? configs.refresh() })
    ).register(on: &router)
    AppleAdsSpendController(
      auth: auth,
      spend: AppleAdsSpendService(
        apps: database, spend: database, configs: configs, secrets: configuration.secrets, importer: spendImporter,
        time: time)
    ).register(on: &router)

    AppStoreServerController(
      auth: auth,
      server: AppStoreServerService(
        apps: database, store: database, configs: configs, secrets: configuration.secrets, recovery: recovery,
        time: time, api: configuration.appStoreServerAPI, verifier: configuration.appStoreVerifier,
        purchases: database, refresher: refresher), errors: errors
    ).register(on: &router)
    let importController = ProfileImportController(
      auth: auth,
      imports: ProfileImportService(
        imports: database, apps: database, time: time, histories: { historyImporter.kick() }),
      histories: historyImporter)
    importController.register(on: &router)
    self.streamedRoutes = [ListsController.streamedRoute, importController.streamedRoute]
    AccessGrantsController(
      auth: auth,
      grants: AccessGrantService(
        apps: database, purchases: database, configs: configs, profiles: profiles, webhooks: webhooks, time: time)
    ).register(on: &router)

    let peopleService = PeopleService(
      people: database, apps: database, hasher: configuration.passwordHasher, passwords: CommonPasswords.policy,
      policy: configuration.sessionPolicy, time: time)
    ConsoleController(
      sessions: sessions, people: peopleService, twoFactor: twoFactor, memberships: database, auth: auth,
      passwords: CommonPasswords.policy,
      trustedProxies: limits.trustedProxies, alwaysSecure: consoleOrigin?.hasPrefix("https://") == true
    ).register(on: &router)
    PeopleController(auth: auth, people: peopleService, publicURL: configuration.publicURL).register(on: &router)
    SingleSignOnController(
      service: SingleSignOnService(
        store: database, apps: database, provider: configuration.openIDProvider, secrets: configuration.secrets,
        sessions: sessions, time: time, logger: logger),
      logger: logger, trustedProxies: limits.trustedProxies, publicURL: configuration.publicURL
    ).register(on: &router)

    let dashboard = configuration.dashboard ? Dashboard() : nil
    self.responder = RoutingResponder(
      router: router,
      guards: [RateLimitGuard(limiter: limiter, limits: limits, untrusted: UntrustedForwarders(logger: logger))],
      errors: errors, metrics: metrics, logger: logger,
      mounts: dashboard.map { dashboard in [.init("/dashboard") { dashboard.respond(to: $0) }] } ?? [])
    self.router = router
    self.configs = configs
    self.waits = waits
    self.attribution = attribution
    self.webhooks = webhooks
    self.spendImporter = spendImporter
    self.recovery = recovery
    self.refundAnswers = refundAnswers
    self.historyImporter = historyImporter
    self.peopleCleanup = PeopleCleanup(
      people: database, policy: configuration.sessionPolicy, time: time, logger: logger)
    self.eventRetention = configuration.eventsRetentionDays.map {
      EventRetention(eventLog: database, days: $0, time: time, logger: logger)
    }
  }

  /// Answers one request; never throws: every failure becomes a JSON error response.
  public func handle(_ request: Request) -> Response {
    responder.respond(to: request)
  }

  /// Drops cached configs whose revision changed in the store (applied elsewhere).
  public func refreshConfigs() throws { try configs.refresh() }

  /// The targeting schema of an app's current configuration (nil: none, or it cannot be read).
  func targetingSchema(appId: Int64) -> TargetingSchema? { (try? configs.entry(appId: appId))??.config.targeting }

  /// Answers every long poll at once (before shutdown: suspended connections must resume).
  public func finishWaits() { waits.finishAll() }
}
