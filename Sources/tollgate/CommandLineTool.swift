import Dispatch
import Foundation
import TollgateAPI
import TollgateCommandLine
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate <command> [options]`: serve, keys, import, export-fallback.
enum CommandLineTool {
  static let usage = """
    usage: tollgate <command> [options]

    commands:
      serve                       run the HTTP server
          --host ADDR             IPv4 address to bind     (TOLLGATE_HOST, default 127.0.0.1)
          --port N                port                     (TOLLGATE_PORT, default 8080)
          --threads N             worker threads           (TOLLGATE_THREADS, default: cores, min 2)
          --log-level LEVEL       debug|info|warn|error    (TOLLGATE_LOG_LEVEL, default info)
          --apple-ads-url URL     Apple's attribution API  (TOLLGATE_APPLE_ADS_URL, default Apple's)
          --apple-ads-api-url URL Apple Ads Campaign Management API, spend and names
                                  (TOLLGATE_APPLE_ADS_API_URL, default https://api.searchads.apple.com/api/v5/)
          --apple-id-url URL      Apple's OAuth service; the token endpoint is auth/oauth2/token under it
                                  (TOLLGATE_APPLE_ID_URL, default https://appleid.apple.com/)
          --app-store-api-url URL App Store Server API, Production (TOLLGATE_APP_STORE_API_URL,
                                  default https://api.storekit.apple.com/)
          --app-store-sandbox-api-url URL
                                  App Store Server API, Sandbox (TOLLGATE_APP_STORE_SANDBOX_API_URL,
                                  default https://api.storekit-sandbox.apple.com/)
          --profile-cache N       profiles kept in memory (TOLLGATE_PROFILE_CACHE, default 100000;
                                  0 turns it off; on PostgreSQL kept coherent with LISTEN/NOTIFY)
          --secrets-key KEY|FILE  seals webhook signing secrets, the Apple Ads API key and the In-App Purchase key (TOLLGATE_SECRETS_KEY; default:
                                  secrets.key beside the SQLite file, created on first use)
          --app-store-root-ca FILE trust this root instead of Apple Root CA - G3 for signed
                                  transactions and notifications (TOLLGATE_APP_STORE_ROOT_CA;
                                  tests and demos only: the server warns)
          --sample-config FILE    on first start create the app "sample", print its keys,
                                  and import FILE into it
          --rate-limit-address L  requests per client address   (TOLLGATE_RATE_LIMIT_ADDRESS,
                                  default 200/s,burst=2000; health and metrics not limited)
          --rate-limit-tokens-per-key L
                                  Apple Ads tokens per public key (…_TOKENS_PER_KEY, default
                                  50/s,burst=500)
          --rate-limit-tokens-per-profile L
                                  Apple Ads tokens per profile (…_TOKENS_PER_PROFILE, default
                                  10/h,burst=10)
          --rate-limit-admin L    admin requests per secret key (…_ADMIN, default 20/s,burst=200)
                                  L is N/s, N/min or N/h, optionally ,burst=M; or off. Beyond a
                                  limit: 429 rate_limited with Retry-After. Per instance.
          --trusted-proxies A,B   proxies whose X-Forwarded-For names the client (TOLLGATE_TRUSTED_PROXIES)
          --connection-limit N    simultaneous connections (TOLLGATE_CONNECTION_LIMIT, default 1024);
                                  beyond it a request is answered 503 server_busy at once
          --max-wait-ms N         hold long polls (wait_for) at most N ms (TOLLGATE_MAX_WAIT_MS,
                                  default 30000, the most a request may ask for)
          --attribution-queue-limit N
                                  Apple Ads tokens waiting for Apple at most
                                  (TOLLGATE_ATTRIBUTION_QUEUE_LIMIT, default 10000); beyond it a
                                  token is answered 503 attribution_queue_full
          --events-retention-days N
                                  keep raw flow views N days (TOLLGATE_EVENTS_RETENTION_DAYS,
                                  default 400; 0 keeps them forever); reports keep every figure
          --public-url URL        where people reach the console, e.g. https://tollgate.example.com
                                  (TOLLGATE_PUBLIC_URL): invitation links point there, console
                                  changes must come from that origin, https makes cookies Secure
          --database-read-url URL a PostgreSQL streaming replica reports read from
                                  (TOLLGATE_DATABASE_READ_URL); the primary answers while it is
                                  down or more than --database-read-max-lag seconds behind (30)
          --no-dashboard          do not serve the web console at /dashboard
      keys create --app NAME      create the app if needed and print a new public + secret key
      keys create --app NAME --kind public|secret [--label TEXT]
                                  one more key for the app (shown once)
      keys create --app NAME --scope S[,S] [--expires Nd] [--label TEXT]
                                  a secret key that may only do S (reports:read, config:write,
                                  profiles:read, support, all) and stops working after N days
      keys list --app NAME        the app's keys: id, kind, created, last used, revoked
      keys revoke KEY_ID --app NAME
                                  every server refuses the key within a second (401 key_revoked)
      users add EMAIL --role ROLE --app NAME
                              invite someone to the console with a role (owner, admin, editor,
                              support, analyst, viewer): prints a link that works once, for 7
                              days (links use --public-url, TOLLGATE_PUBLIC_URL)
      users list --app NAME       the app's people: role, joined, disabled or locked; invitations
      users disable EMAIL         no more sign-ins; their sessions end at once (every app)
      users enable EMAIL          let a disabled person sign in again
      users unlock EMAIL          lift a lock after failed sign-ins at once
      users reset-password EMAIL --app NAME
                                  a one-time link to choose a new password (their sessions end)
      users reset-two-factor EMAIL
                                  turn off someone's second factor (a lost phone)
      sso set --issuer URL --client-id ID --client-secret-file FILE [--label TEXT]
            [--allowed-domains example.com[,…]] [--default-role ROLE --app NAME] [--skip-check]
                                  single sign-on with an OpenID Connect provider (Google Workspace,
                                  Okta, Keycloak …): checks its discovery document, seals the
                                  secret, prints the redirect URI to register (--public-url)
      sso show                    the provider, allowed domains, default role, redirect URI
      sso remove                  turn single sign-on off (people keep their accounts)
      config history --app NAME [--limit N]
                                  applied revisions: when, by which key, what changed (* current)
      config show REVISION --app NAME
                                  print the document of a revision
      config rollback REVISION --app NAME
                                  apply that revision's document again, as a new revision
      audit --app NAME [--limit N] [--actor EMAIL|KEY_ID]
                                  admin actions: keys created/revoked, configs applied/rolled back,
                                  webhook secrets rotated, deliveries redelivered, people invited,
                                  disabled …; who (a person, a key or cli), from which address and
                                  console session
      backup --to FILE            a consistent copy of the SQLite database while the server runs
                                  (PostgreSQL: pg_dump, see docs/operations.md)
      restore --from FILE         put a backup in place as --database, which must not exist yet
      import FILE --app NAME      validate FILE and apply it as the app's next revision
      import profiles FILE --app NAME [--from ndjson|revenuecat|adapty] [--refusals OUT]
                                  bring an existing app's users: FILE is NDJSON, a profile a line
                                  (profile_id or customer_user_id, installed_at, store_country,
                                  app_version, locale, custom_attributes, apple_ads, transaction_ids);
                                  a wrong line is refused with its number, the rest imported; the same
                                  file again changes nothing; OUT gets every refused line; --from reads
                                  RevenueCat's transactions export or Adapty's events export (CSV);
                                  FILE may be gzipped, - reads standard input
      import history --app NAME [--follow]
                                  imported customers' App Store histories (fetched from Apple by a
                                  running server): done, failed, pending, transactions, time left;
                                  --follow redraws a progress bar until none is pending
      lists put ID FILE --app NAME
                                  store a saved list for $inGroup rules: FILE is one value a line,
                                  or a JSON array; up to 1 000 000 values (replaces a list of that id)
      lists get ID --app NAME     a list's size, checksum, time and the audiences naming it
      lists list --app NAME       every saved list of the app
      lists delete ID --app NAME  delete a list no audience of the current configuration names
      export-fallback --app NAME [--asset-budget BYTES]
                                  print the app's fallback file (for setFallback(fileURL:)), with
                                  the paywall documents and their images up to BYTES (512 KiB)
      report placement ID --app NAME [--from DAY] [--to DAY] [--format table|json|csv]
                                  conversion, revenue and probability to be best per audience
                                  and variation (UTC days YYYY-MM-DD; default the last 30 days)
      report apple-ads --app NAME [--by campaign|ad_group|keyword] [--environment production|sandbox]
            [--from DAY] [--to DAY] [--format …]
                                  installs, first-launch targeting, purchasers and revenue; with
                                  imported spend: names, spend, CPI, ROAS (to date, day 7, day 30), payback
      report subscriptions --app NAME [--by day|week|month] [--environment production|sandbox]
            [--product-id ID] [--storefront USA] [--campaign-id N] [--ad-group-id N] [--keyword-id N]
            [--placement-id ID] [--audience-id ID] [--variation-id ID] [--origin import|live] [--from DAY] [--to DAY]
            [--format …]
                                  active subscriptions and trials, conversions, renewals, churn,
                                  refunds, revenue, proceeds and MRR per period
      report cohorts --app NAME [--by day|week|month] [--segment none|source|campaign|ad_group|keyword|variation|country|origin]
            [--origin import|live] [--top N] [--environment production|sandbox] [--from DAY] [--to DAY]
            [--format …]          install cohorts: paying share, trials, active subscriptions and
                                  net revenue and proceeds per install at ages 0 … 365 days
      apple-ads credentials --app NAME --key FILE
                                  seal the Apple Ads API private key (PEM, P-256) in the database and
                                  import spend at once; the configuration needs apple_ads_api first
      apple-ads status --app NAME the spend importer: credentials (fingerprint, last used), last run,
                                  next run, failure
      apple-ads import --app NAME import now (also after a failure was fixed)
      app-store credentials --app NAME --key FILE.p8
                                  seal the App Store Server API's In-App Purchase key in the database and
                                  recover missed notifications at once; needs app_store.server_api first
      app-store status --app NAME the App Store Server API: key (fingerprint), and per environment the
                                  notification recovery's window, counts, last call, failure
      app-store recover --app NAME
                                  recover missed notifications now (also after a failure was fixed)
      app-store order --app NAME ORDER_ID
                                  the transactions of the order id on a customer's Apple receipt
                                  e-mail, and the profiles that own them (Apple's Look Up Order ID;
                                  TOLLGATE_APP_STORE_API_URL points it elsewhere)
      app-store test-notification --app NAME [--environment Production|Sandbox]
                                  ask Apple for a TEST notification (a running server asks within
                                  seconds); app-store status says when it arrived
      app-store refresh --app NAME --profile ID [--wait SECONDS]
                                  pull a customer's whole history from Apple (Get Transaction
                                  History): a running server does it within seconds; waits up to
                                  SECONDS (30) for the result
      app-store refund-requests --app NAME [--from DAY] [--to DAY] [--format table|json]
                                  Apple's refund requests: answered, not sent, refunded, declined,
                                  by reason and product, and the latest requests
      access grant PROFILE_ID LEVEL --reason TEXT (--expires TIME | --lifetime)
                                  give an access level by hand (ISO 8601 TIME), through the running
                                  server (--server URL, TOLLGATE_SERVER_URL, default
                                  http://127.0.0.1:8080; --key or TOLLGATE_SECRET_KEY: a secret key)
      access revoke PROFILE_ID LEVEL
                                  take hand-given grants of LEVEL back (same --server and --key)
      spend import FILE.csv --app NAME
                                  upsert spend rows from a CSV file (day, campaign_id, campaign_name,
                                  ad_group_id, ad_group_name, keyword_id, keyword, spend, currency,
                                  installs); importing the same file twice changes nothing
      rollups rebuild --app NAME [--accept-expired]
                                  recompute the report figures from raw rows and say whether the
                                  live figures agreed; refused once raw flow views were expired
                                  (their impressions would be lost) unless --accept-expired

    every command takes --database PATH|URL  (TOLLGATE_DATABASE, default ./data/tollgate.sqlite;
                                              postgres://user@host:port/db for PostgreSQL)
      and, when that URL leads through PgBouncer in transaction pooling mode,
      --database-listen-url URL  a direct connection to the same database, for LISTEN
                                 (TOLLGATE_DATABASE_LISTEN_URL): nothing is kept in pooled sessions
    """

  /// Runs a command; returns the process exit status.
  static func run(_ arguments: [String]) async -> Int32 {
    await ToolRun.run("tollgate", usage: usage, arguments) { options in
      switch options.command {
      case ["serve"]: try await serve(&options)
      case ["keys", "create"]:
        // A scope or an expiry makes a secret key.
        let limited = options.has("--scope") || options.has("--expires")
        if let kind = options.value("--kind", env: nil) ?? (limited ? "secret" : nil) {
          try Operations.keysCreateOne(&options, kind: kind)
        } else {
          try keysCreate(&options)
        }
      case ["keys", "list"]: try Operations.keysList(&options)
      case ["keys", "revoke"]: try Operations.keysRevoke(&options)
      case ["users", "add"]: try UserCommands.add(&options)
      case ["users", "list"]: try UserCommands.list(&options)
      case ["users", "disable"]: try UserCommands.disable(&options, disabled: true)
      case ["users", "enable"]: try UserCommands.disable(&options, disabled: false)
      case ["users", "unlock"]: try UserCommands.unlock(&options)
      case ["users", "reset-password"]: try UserCommands.resetPassword(&options)
      case ["users", "reset-two-factor"]: try UserCommands.resetTwoFactor(&options)
      case ["sso", "set"]: try await SingleSignOnCommands.set(&options)
      case ["sso", "show"]: try SingleSignOnCommands.show(&options)
      case ["sso", "remove"]: try SingleSignOnCommands.remove(&options)
      case ["config", "history"]: try Operations.configHistory(&options)
      case ["config", "show"]: try Operations.configShow(&options)
      case ["config", "rollback"]: try Operations.configRollback(&options)
      case ["audit"]: try Operations.audit(&options)
      case ["backup"]: try Operations.backup(&options)
      case ["restore"]: try Operations.restore(&options)
      case ["import"]: try importConfig(&options)
      case ["import", "profiles"]: try ImportCommands.profiles(&options)
      case ["import", "history"]: try ImportCommands.history(&options)
      case ["lists", "put"]: try ListCommands.put(&options)
      case ["lists", "get"]: try ListCommands.show(&options)
      case ["lists", "list"]: try ListCommands.list(&options)
      case ["lists", "delete"]: try ListCommands.delete(&options)
      case ["export-fallback"]: try exportFallback(&options)
      case ["report", "placement"]: try Reports.placement(&options)
      case ["report", "apple-ads"]: try Reports.appleAds(&options)
      case ["report", "subscriptions"]: try Reports.subscriptions(&options)
      case ["report", "cohorts"]: try Reports.cohorts(&options)
      case ["rollups", "rebuild"]: try Reports.rebuild(&options)
      case ["apple-ads", "credentials"]: try SpendCommands.credentials(&options)
      case ["apple-ads", "status"]: try SpendCommands.status(&options)
      case ["apple-ads", "import"]: try SpendCommands.runNow(&options)
      case ["app-store", "credentials"]: try AppStoreCommands.credentials(&options)
      case ["app-store", "status"]: try AppStoreCommands.status(&options)
      case ["app-store", "recover"]: try AppStoreCommands.recover(&options)
      case ["app-store", "test-notification"]: try AppStoreCommands.testNotification(&options)
      case ["app-store", "order"]: try AppStoreCommands.order(&options)
      case ["app-store", "refresh"]: try AppStoreCommands.refresh(&options)
      case ["app-store", "refund-requests"]: try AppStoreCommands.refundRequests(&options)
      case ["access", "grant"]: try AccessCommands.grant(&options)
      case ["access", "revoke"]: try AccessCommands.revoke(&options)
      case ["spend", "import"]: try SpendCommands.importFile(&options)
      default: return false
      }
      return true
    }
  }

  // MARK: Commands

  static func serve(_ options: inout Options) async throws {
    var settings = HTTPServer.Settings()
    settings.bindAddress = options.value("--host", env: "TOLLGATE_HOST") ?? "127.0.0.1"
    if let port = options.value("--port", env: "TOLLGATE_PORT") {
      guard let number = UInt16(port) else { throw Failure("--port takes a number 0–65535") }
      settings.port = number
    }
    if let threads = options.value("--threads", env: "TOLLGATE_THREADS") {
      guard let number = Int(threads), number > 0 else { throw Failure("--threads takes a positive number") }
      settings.threads = number
    }
    let levelName = options.value("--log-level", env: "TOLLGATE_LOG_LEVEL") ?? "info"
    guard let level = LogLevel(name: levelName) else { throw Failure("unknown log level \(levelName)") }
    let sampleConfig = options.value("--sample-config", env: nil)
    var appleURL = AppleAdsClient.appleURL
    if let text = options.value("--apple-ads-url", env: "TOLLGATE_APPLE_ADS_URL") {
      guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
        throw Failure("--apple-ads-url takes an http(s) URL")
      }
      appleURL = url
    }
    func url(_ option: String, env: String, default value: URL) throws -> URL {
      guard let text = options.value(option, env: env) else { return value }
      guard let url = URL(string: text.hasSuffix("/") ? text : text + "/"),
        url.scheme == "http" || url.scheme == "https"
      else { throw Failure("\(option) takes an http(s) URL") }
      return url
    }
    let adsAPIURL = try url(
      "--apple-ads-api-url", env: "TOLLGATE_APPLE_ADS_API_URL", default: CampaignManagementClient.appleAPIURL)
    let appleIDURL = try url(
      "--apple-id-url", env: "TOLLGATE_APPLE_ID_URL", default: CampaignManagementClient.appleIDURL)
    let appStoreAPIURL = try url(
      "--app-store-api-url", env: "TOLLGATE_APP_STORE_API_URL", default: AppStoreServerClient.productionURL)
    let appStoreSandboxAPIURL = try url(
      "--app-store-sandbox-api-url", env: "TOLLGATE_APP_STORE_SANDBOX_API_URL",
      default: AppStoreServerClient.sandboxURL)
    let cacheText = options.value("--profile-cache", env: "TOLLGATE_PROFILE_CACHE") ?? "100000"
    guard let profileCache = Int(cacheText), profileCache >= 0 else {
      throw Failure("--profile-cache takes a number of profiles (0 turns the cache off)")
    }
    let rootFile = options.value("--app-store-root-ca", env: "TOLLGATE_APP_STORE_ROOT_CA")
    var limits = RateLimits()
    if let value = options.value("--rate-limit-address", env: "TOLLGATE_RATE_LIMIT_ADDRESS") {
      limits.perAddress = value
    }
    if let value = options.value("--rate-limit-tokens-per-key", env: "TOLLGATE_RATE_LIMIT_TOKENS_PER_KEY") {
      limits.tokensPerKey = value
    }
    if let value = options.value("--rate-limit-tokens-per-profile", env: "TOLLGATE_RATE_LIMIT_TOKENS_PER_PROFILE") {
      limits.tokensPerProfile = value
    }
    if let value = options.value("--rate-limit-admin", env: "TOLLGATE_RATE_LIMIT_ADMIN") { limits.adminPerKey = value }
    if let value = options.value("--trusted-proxies", env: "TOLLGATE_TRUSTED_PROXIES") {
      limits.trustedProxies = Set(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
    }
    do { try limits.validate() } catch { throw Failure("\(error)") }
    var maxWait = ProfileWaits.maximumSeconds
    if let value = options.value("--max-wait-ms", env: "TOLLGATE_MAX_WAIT_MS") {
      guard let number = Int(value), (0...30_000).contains(number) else {
        throw Failure("--max-wait-ms takes 0–30000")
      }
      maxWait = Double(number) / 1000
    }
    if let value = options.value("--connection-limit", env: "TOLLGATE_CONNECTION_LIMIT") {
      guard let number = Int(value), number > 0 else { throw Failure("--connection-limit takes a positive number") }
      settings.connectionLimit = number
    }
    var queueLimit = AttributionWorker.defaultMaxQueue
    if let value = options.value("--attribution-queue-limit", env: "TOLLGATE_ATTRIBUTION_QUEUE_LIMIT") {
      guard let number = Int(value), (1...10_000_000).contains(number) else {
        throw Failure("--attribution-queue-limit takes a number of tokens, 1–10000000")
      }
      queueLimit = number
    }
    var retentionDays: Int? = EventRetention.defaultDays
    if let value = options.value("--events-retention-days", env: "TOLLGATE_EVENTS_RETENTION_DAYS") {
      guard let number = Int(value), (0...36_500).contains(number) else {
        throw Failure("--events-retention-days takes a number of days (0 keeps raw flow views forever)")
      }
      retentionDays = number == 0 ? nil : number
    }
    let publicURL = options.value("--public-url", env: "TOLLGATE_PUBLIC_URL")
    if let publicURL {
      guard let url = URL(string: publicURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
        throw Failure("--public-url takes an http(s) URL, e.g. https://tollgate.example.com")
      }
    }
    let dashboard = options.flag("--no-dashboard") == false
    let databasePath = options.databasePath
    let readURL = options.value("--database-read-url", env: "TOLLGATE_DATABASE_READ_URL")
    var readPolicy = ReadReplica.Policy()
    if let value = options.value("--database-read-max-lag", env: "TOLLGATE_DATABASE_READ_MAX_LAG") {
      guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
        throw Failure("--database-read-max-lag takes seconds (more than 0)")
      }
      readPolicy.maxLag = seconds
    }
    if readURL != nil, !StoreLocation.isPostgres(databasePath) {
      throw Failure("--database-read-url needs a PostgreSQL --database (a replica of it)")
    }
    let secrets = try secretsBox(&options, databasePath: databasePath)
    try options.finish()

    let logger = Logger(level: level)
    var verifier = SignedDataVerifier()
    if let rootFile {
      let data: Data
      do { data = try Data(contentsOf: URL(fileURLWithPath: rootFile)) } catch {
        throw Failure("--app-store-root-ca: cannot read \(rootFile)")
      }
      do { verifier = try SignedDataVerifier(rootCertificate: data) } catch {
        throw Failure("--app-store-root-ca: \(error.message)")
      }
      if !verifier.usesAppleRoot {
        logger.warn(
          "App Store signed data is verified against \(rootFile) (SHA-256 \(verifier.rootFingerprint)), NOT Apple Root CA - G3: for tests and demos only"
        )
      }
    }
    let store = try StoreLocation.open(
      databasePath, listenURL: options.databaseListenURL, profileCache: profileCache, logger: logger)
    if let sampleConfig {
      try SampleApp.prepare(store: store.database, configPath: sampleConfig, databasePath: databasePath)
    }
    var configuration = ServerConfiguration()
    configuration.http = settings
    configuration.logger = logger
    configuration.apple = AppleAdsClient(url: appleURL)
    configuration.campaignManagement = CampaignManagementClient(apiURL: adsAPIURL, idURL: appleIDURL)
    configuration.appStoreServerAPI = AppStoreServerClient(
      productionURL: appStoreAPIURL, sandboxURL: appStoreSandboxAPIURL)
    configuration.appStoreVerifier = verifier
    configuration.secrets = secrets
    configuration.rateLimits = limits
    configuration.maxWaitSeconds = maxWait
    configuration.attributionQueueLimit = queueLimit
    configuration.dashboard = dashboard
    configuration.publicURL = publicURL
    configuration.eventsRetentionDays = retentionDays
    if let readURL, let primary = store.database as? PostgresStore {
      configuration.readReplica = ReadReplica(
        url: readURL, primary: primary, policy: readPolicy, time: configuration.time, logger: logger)
    }
    let server = Server(store: store, configuration: configuration)
    let port = try server.start()
    if sampleConfig != nil {
      try SampleApp.announce(
        store: store.database, databasePath: databasePath, host: settings.bindAddress, port: port, publicURL: publicURL)
    }
    let shownDatabase = StoreLocation.isPostgres(databasePath) ? "PostgreSQL" : databasePath
    logger.info("tollgate listening on http://\(settings.bindAddress):\(port) (database \(shownDatabase))")
    let signal = await Signals.next([SIGINT, SIGTERM])
    logger.info("signal \(signal): finishing requests in flight, then closing the database")
    server.stop()
    logger.info("stopped")
  }

  /// The key that seals webhook signing secrets: `--secrets-key` / `TOLLGATE_SECRETS_KEY` (32
  /// bytes in hex or base64, or a file holding them), else `secrets.key` beside the SQLite
  /// file (created on first use, mode 0600); PostgreSQL instances share one key this way.
  static func secretsBox(_ options: inout Options, databasePath: String) throws -> SecretBox {
    let option = options.value("--secrets-key", env: "TOLLGATE_SECRETS_KEY")
    let directory =
      StoreLocation.isPostgres(databasePath)
      ? URL(fileURLWithPath: "data") : URL(fileURLWithPath: databasePath).deletingLastPathComponent()
    do {
      return try SecretBox.load(option: option, defaultFile: directory.appendingPathComponent("secrets.key"))
    } catch {
      throw Failure("--secrets-key: \(error)", status: 1)
    }
  }

  static func keysCreate(_ options: inout Options) throws {
    let app = try options.required("--app")
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    let keys = try KeyIssuer(apps: store).issue(appName: app)
    print(
      """
      app:        \(keys.app.name)
      public key: \(keys.publicKey)    (SDK: Authorization: Api-Key …)
      secret key: \(keys.secretKey)    (admin: Authorization: Bearer …)
      Keys are stored hashed: this is the only time they are shown.
      """)
  }

  static func importConfig(_ options: inout Options) throws {
    guard let file = options.positional() else { throw Failure("import needs a FILE") }
    let appName = try options.required("--app")
    let databasePath = options.databasePath
    let box = try secretsBox(&options, databasePath: databasePath)
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 1).database
    defer { store.close() }
    try options.finish()
    guard let app = try store.app(named: appName) else {
      throw Failure.missing("no app named \(appName); create it with: tollgate keys create --app \(appName)")
    }
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let (config, secrets) = try ConfigImporter(database: store, secrets: box).applyReturningSecrets(data, appId: app.id)
    print(
      "applied \(file) to \(appName) as revision \(config.revision): placements \(config.placementIds.joined(separator: ", "))"
    )
    for (webhook, secret) in secrets.sorted(by: { $0.key < $1.key }) {
      print("webhook \(webhook) signing secret: \(secret)    (shown once; verify Tollgate-Signature with it)")
    }
  }

  static func exportFallback(_ options: inout Options) throws {
    let appName = try options.required("--app")
    let budgetText = options.value("--asset-budget", env: nil) ?? String(FallbackFile.assetBudget)
    guard let budget = Int(budgetText), budget >= 0 else {
      throw Failure("--asset-budget takes a number of bytes, 0 or more")
    }
    let store = try StoreLocation.open(options.databasePath, listenURL: options.databaseListenURL, connections: 1)
      .database
    defer { store.close() }
    try options.finish()
    guard let app = try store.app(named: appName) else { throw Failure.missing("no app named \(appName)") }
    guard let data = try FallbackExport(database: store).fallbackFile(appId: app.id, assetBudget: budget) else {
      throw Failure.missing("app \(appName) has no configuration yet")
    }
    FileHandle.standardOutput.write(data)
    FileHandle.standardOutput.write(Data("\n".utf8))
  }
}
