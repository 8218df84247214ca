import Foundation
import TollgateAPI

/// The Tollgate HTTP API as a pure function of a request: routes, authentication, errors
/// and metrics. It holds no socket, so tests can call `handle(_:)` directly or through a
/// real `HTTPServer`.
public final class Service: Sendable {
  let endpoints: Endpoints
  /// Every route; built once.
  public let router: Router
  /// The web console (nil: `--no-dashboard`).
  let dashboard: Dashboard?

  /// Creates the service over a store.
  public init(
    store: any Store, time: any TimeSource = SystemTimeSource(), logger: Logger = Logger(),
    defaultMaxAge: Int = 60, apple: any AppleAdsResolving = AppleAdsClient(),
    attributionPolicy: AttributionPolicy = AttributionPolicy(), attributionBudget: TimeInterval = 1.5,
    appStoreVerifier: SignedDataVerifier = SignedDataVerifier(), secrets: SecretBox? = nil,
    webhookSender: any WebhookSending = URLSessionWebhookSender(), rateLimits: RateLimits = RateLimits(),
    maxWaitSeconds: Double = ProfileWaits.maximumSeconds, dashboard: Bool = true
  ) {
    self.dashboard = dashboard ? Dashboard() : nil
    let endpoints = Endpoints(
      store: store, time: time, logger: logger, defaultMaxAge: defaultMaxAge, apple: apple,
      attributionPolicy: attributionPolicy, attributionBudget: attributionBudget, appStoreVerifier: appStoreVerifier,
      secrets: secrets, webhookSender: webhookSender,
      limits: (try? rateLimits.parsed()) ?? RateLimits().parsedDefaults, maxWaitSeconds: maxWaitSeconds)
    var router = Router()
    endpoints.addOperationsRoutes(to: &router)
    endpoints.addProfileRoutes(to: &router)
    endpoints.addPlacementRoutes(to: &router)
    endpoints.addEventRoutes(to: &router)
    endpoints.addAttributionRoutes(to: &router)
    endpoints.addPurchaseRoutes(to: &router)
    endpoints.addWebhookRoutes(to: &router)
    endpoints.addAdminRoutes(to: &router)
    endpoints.addOperatorRoutes(to: &router)
    endpoints.addConsoleRoutes(to: &router)
    self.endpoints = endpoints
    self.router = router
  }

  /// Answers one request; never throws: every failure becomes a JSON error response.
  public func handle(_ request: Request) -> Response {
    let started = ContinuousClock.now
    var label = "unmatched"
    let response: Response
    if let dashboard, let file = dashboard.response(for: request) {
      label = "/dashboard"
      response = file
    } else {
      response = route(request, label: &label)
    }
    let metrics = endpoints.metrics
    let logger = endpoints.logger
    let route = label
    let record: @Sendable (Response) -> Void = { response in
      let elapsed = started.duration(to: .now)
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      metrics.record(route: route, method: request.method, status: response.status, seconds: seconds)
      logger.debug("\(request.method) \(request.path) → \(response.status)")
    }
    if let deferred = response.deferred {
      deferred.onComplete(record)
    } else {
      record(response)
    }
    return response
  }

  /// The API's answer: the matched route's handler, 405 or 404; `label` becomes the pattern.
  private func route(_ request: Request, label: inout String) -> Response {
    switch router.match(method: request.method, path: request.path) {
    case .route(let route, let parameters):
      label = route.pattern
      var request = request
      request.pathParameters = parameters
      do {
        try endpoints.admit(request, route: route.pattern)
        return try route.handler(request)
      } catch {
        return endpoints.errorResponse(error, context: "\(request.method) \(request.path)")
      }
    case .methodNotAllowed(let allowed):
      var error = DomainError(.methodNotAllowed, "\(request.method) is not allowed here.").response
      error.headers.append(("Allow", allowed.joined(separator: ", ")))
      return error
    case .notFound:
      return DomainError(.routeNotFound, "No route \(request.method) \(request.path).").response
    }
  }

  /// Drops cached configs whose revision changed in the store (applied elsewhere).
  public func refreshConfigs() throws { try endpoints.configs.refresh() }

  /// The attribution worker (tests run its passes by hand).
  public var attribution: AttributionWorker { endpoints.attribution }

  /// The webhook delivery worker (tests run its passes by hand).
  public var webhooks: WebhookWorker { endpoints.webhooks }

  /// Answers every long poll at once (before shutdown: suspended connections must resume).
  public func finishWaits() { endpoints.waits.finishAll() }
}

extension Endpoints {
  /// The client's address: the connection's, or — when the connection comes from a trusted
  /// proxy — the last address that proxy added to `X-Forwarded-For`.
  func clientAddress(_ request: Request) -> String {
    guard limits.trustedProxies.contains(request.clientAddress),
      let forwarded = request.header("x-forwarded-for")?.split(separator: ",").last
    else { return request.clientAddress }
    return forwarded.trimmingCharacters(in: .whitespaces)
  }

  /// Per-address and per-secret-key limits, before the handler runs; 429 `rate_limited` with
  /// `Retry-After` beyond them. Health checks and metrics are not limited.
  func admit(_ request: Request, route: String) throws {
    guard route != "/health", route != "/metrics" else { return }
    if let wait = limiter.take("address " + clientAddress(request), limits.address) {
      throw Self.rateLimited(wait, "Too many requests from this address")
    }
    if route.hasPrefix("/v1/admin"), let key = request.header("authorization"),
      let wait = limiter.take("admin " + key, limits.admin)
    {
      throw Self.rateLimited(wait, "Too many admin requests with this key")
    }
  }

  static func rateLimited(_ wait: Double, _ what: String) -> DomainError {
    let seconds = max(1, Int(wait.rounded(.up)))
    return DomainError(.rateLimited, "\(what); retry after \(seconds) s.", retryAfter: seconds)
  }

  /// The JSON answer for an error a handler threw: its own status for `DomainError`, 503 with
  /// `Retry-After` while the database is unreachable, else a logged 500.
  func errorResponse(_ error: any Error, context: String) -> Response {
    switch error {
    case let error as DomainError:
      return error.response
    case StoreError.storageUnavailable(let reason):
      logger.error("\(context): storage cannot write: \(reason)")
      return DomainError(
        .storageUnavailable, "The server cannot write to its storage (disk full or I/O error); retry later.",
        retryAfter: 5
      ).response
    case StoreError.unavailable(let reason):
      logger.error("\(context): database unavailable: \(reason)")
      return DomainError(.databaseUnavailable, "The database cannot be reached; retry shortly.", retryAfter: 1)
        .response
    default:
      logger.error("\(context): \(error)")
      return DomainError(.internalError, "The server failed to answer; the error is logged.").response
    }
  }
}

/// What the route handlers share: the store, the clock, caches, authentication, metrics.
final class Endpoints: Sendable {
  let store: any Store
  let time: any TimeSource
  let logger: Logger
  let metrics = Metrics()
  let configs: ConfigCache
  let auth: Authenticator
  /// Seconds a CDN or client may keep a default-audience response.
  let defaultMaxAge: Int
  /// Long polls on profiles.
  let waits: ProfileWaits
  /// Resolves Apple Ads tokens.
  let attribution: AttributionWorker
  /// How long `POST …/attribution/apple-ads` waits for the outcome before answering 202.
  let attributionBudget: TimeInterval
  /// Verifies Apple-signed transactions and notifications.
  let appStoreVerifier: SignedDataVerifier
  /// Seals webhook signing secrets.
  let secrets: SecretBox?
  /// Delivers the webhook outbox.
  let webhooks: WebhookWorker
  /// Token buckets and the limits they enforce.
  let limiter: RateLimiter
  let limits: ParsedRateLimits
  /// The longest a long poll is held (`--max-wait-ms`; requests may ask for less).
  let maxWaitSeconds: Double

  init(
    store: any Store, time: any TimeSource, logger: Logger, defaultMaxAge: Int, apple: any AppleAdsResolving,
    attributionPolicy: AttributionPolicy, attributionBudget: TimeInterval, appStoreVerifier: SignedDataVerifier,
    secrets: SecretBox?, webhookSender: any WebhookSending, limits: ParsedRateLimits, maxWaitSeconds: Double
  ) {
    self.limits = limits
    limiter = RateLimiter(clock: { time.elapsedSeconds() })
    self.maxWaitSeconds = maxWaitSeconds
    self.store = store
    self.appStoreVerifier = appStoreVerifier
    self.secrets = secrets
    self.time = time
    self.logger = logger
    let configs = ConfigCache(store: store)
    self.configs = configs
    webhooks = WebhookWorker(
      store: store, time: time, logger: logger, secrets: secrets, sender: webhookSender,
      webhooks: { appId in (try? configs.entry(appId: appId))??.config.webhooks ?? [] })
    self.auth = Authenticator(store: store, time: time)
    self.defaultMaxAge = defaultMaxAge
    self.attributionBudget = attributionBudget
    let waits = ProfileWaits()
    self.waits = waits
    attribution = AttributionWorker(
      store: store, apple: apple, time: time, logger: logger, policy: attributionPolicy,
      allowsTestAttribution: { appId in (try? configs.entry(appId: appId))??.config.allowTestAttribution ?? false },
      webhooks: { appId in (try? configs.entry(appId: appId))??.config.webhooks ?? [] },
      onChange: { profile, appId in waits.changed(.init(appId: appId, profileId: profile.id)) })
  }

  /// Decodes a JSON body after checking its media type: 415 when it is not JSON, 400 when
  /// it is not valid JSON (including invalid UTF-8) or not this route's shape.
  func decode<T: Decodable>(_ type: T.Type, from request: Request) throws -> T {
    try Self.requireJSON(request)
    do {
      return try WireCoding.decoder.decode(type, from: request.body)
    } catch let DecodingError.keyNotFound(key, context) {
      throw DomainError.malformedJSON("missing \(Self.path(context.codingPath + [key]))")
    } catch let DecodingError.typeMismatch(_, context) {
      throw DomainError.malformedJSON("wrong type at \(Self.path(context.codingPath))")
    } catch let DecodingError.valueNotFound(_, context) {
      throw DomainError.malformedJSON("null at \(Self.path(context.codingPath))")
    } catch {
      throw DomainError.malformedJSON("not parseable as UTF-8 JSON")
    }
  }

  static func requireJSON(_ request: Request) throws {
    let mediaType = request.header("content-type")?.split(separator: ";").first?
      .trimmingCharacters(in: .whitespaces).lowercased()
    guard mediaType == "application/json" else {
      throw DomainError(.unsupportedMediaType, "Send the body as Content-Type: application/json.")
    }
  }

  private static func path(_ keys: [any CodingKey]) -> String {
    keys.reduce("$") { path, key in
      key.intValue.map { "\(path)[\($0)]" } ?? "\(path).\(key.stringValue)"
    }
  }
}
