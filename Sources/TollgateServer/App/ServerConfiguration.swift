import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Everything a server is made of besides its store: the HTTP settings, the collaborators
/// (clock, logger, Apple's APIs, webhook sender) and the knobs. One value, built once by the
/// command line, the tests or the demo, and handed to `Server` and `Service` whole.
public struct ServerConfiguration: Sendable {
  /// Address, port, threads, limits of the HTTP server.
  public var http = HTTPServer.Settings()
  /// Where the time comes from (tests set it by hand).
  public var time: any TimeSource = SystemTimeSource()
  /// Where log lines go and from which level.
  public var logger = Logger()
  /// Resolves Apple Ads tokens: Apple's API, or a stand-in in tests and the demo.
  public var apple: any AppleAdsResolving = AppleAdsClient()
  /// How Apple's answers are retried.
  public var attributionPolicy = AttributionPolicy()
  /// How often pending tokens are looked at (nil: only when a token arrives; tests drive it).
  public var attributionInterval: TimeInterval? = 0.5
  /// How long `POST …/attribution/apple-ads` waits for Apple before answering 202.
  public var attributionBudget: TimeInterval = 1.5
  /// Pending Apple Ads tokens beyond which new ones are refused with 503
  /// (`--attribution-queue-limit`): a launch day's burst the worker applies over the next minutes.
  public var attributionQueueLimit = AttributionWorker.defaultMaxQueue
  /// Apple Ads' Campaign Management API (spend, names): Apple's, or a stand-in.
  public var campaignManagement: any CampaignManagementAPI = CampaignManagementClient()
  /// How the spend importer pages, leases and backs off.
  public var spendImportPolicy = SpendImportPolicy()
  /// How often the store is read for spend imports another process made due, such as a key the
  /// command line uploaded (nil: tests drive the importer). Jobs this instance scheduled wake it
  /// at their own due time.
  public var spendImportInterval: TimeInterval? = 5
  /// Apple's App Store Server API (notification history): Apple's, or a stand-in.
  public var appStoreServerAPI: any AppStoreServerAPI = AppStoreServerClient()
  /// How the notification recovery leases, windows and backs off.
  public var recoveryPolicy = RecoveryPolicy()
  /// How often due notification recoveries are looked for (nil: tests drive the recovery).
  public var recoveryInterval: TimeInterval? = 15
  /// Days raw flow views are kept (nil: forever); rollups keep the figures regardless.
  public var eventsRetentionDays: Int? = EventRetention.defaultDays
  /// How often old flow views are looked for (nil: tests drive the retention).
  public var eventsRetentionInterval: TimeInterval? = 3_600
  /// Verifies Apple-signed transactions and notifications.
  public var appStoreVerifier = SignedDataVerifier()
  /// Seals webhook signing secrets (nil: webhooks cannot get secrets).
  public var secrets: SecretBox?
  /// Sends webhook deliveries.
  public var webhookSender: any WebhookSending = URLSessionWebhookSender()
  /// How often the webhook outbox is looked at (nil: tests drive the worker).
  public var webhookInterval: TimeInterval? = 0.5
  /// Per-address, per-key and per-profile limits.
  public var rateLimits = RateLimits()
  /// The longest a long poll is held (`--max-wait-ms`).
  public var maxWaitSeconds: Double = ProfileWaits.maximumSeconds
  /// Serve the console at `/dashboard`.
  public var dashboard = true
  /// Seconds a CDN or client may keep a default-audience answer.
  public var defaultMaxAge = 60
  /// Hashes people's passwords (tests use a cheaper cost).
  public var passwordHasher = PasswordHasher.recommended
  /// How long console sessions and invitations last.
  public var sessionPolicy = SessionPolicy()
  /// How failed sign-ins are slowed down.
  public var signInThrottle = SignInThrottle()
  /// How often stale sessions, failure counts and invitations are forgotten (nil: tests drive it).
  public var peopleCleanupInterval: TimeInterval? = 3_600
  /// The address people reach the console at (`--public-url`, e.g. https://tollgate.example.com):
  /// invitation links point there, the console's writes must come from that origin, and an
  /// `https` address makes session cookies `Secure`. Unset: the request's own host.
  public var publicURL: String?
  /// A PostgreSQL streaming replica reports and exports read from while it keeps up
  /// (`--database-read-url`); nil: the primary answers them.
  public var readReplica: ReadReplica?
  /// The OpenID Connect provider single sign-on talks to (discovery, keys, token endpoint).
  public var openIDProvider: any OpenIDProviderClient = URLSessionOpenIDClient()

  /// The defaults: Apple's APIs, the system clock, the documented limits.
  public init() {}
}
