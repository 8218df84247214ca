import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// How the importer paces itself.
public struct SpendImportPolicy: Sendable, Hashable {
  /// How long a claimed job stays another instance's no-go; renewed before every call to Apple
  /// (and with every stored window), so a lease not renewed for half its length (API calls time out
  /// sooner) belongs to an instance that stopped.
  public var lease: TimeInterval = 90
  /// Days fetched and stored together: a crash loses at most one window's requests, never a day.
  public var windowDays: Int64 = 30
  /// Rows per report page (Apple allows 1 000).
  public var pageSize = 1_000
  /// The first back-off after a 5xx or a lost connection; it doubles up to `maximumRetry`.
  public var firstRetry: TimeInterval = 60
  public var maximumRetry: TimeInterval = 3_600
  /// How long a client secret is valid (Apple accepts 180 days at most).
  public var secretLifetime: TimeInterval = ClientSecret.maximumLifetime

  /// The defaults.
  public init() {}
}

/// Imports each app's Apple Ads spend, names and installs from the Campaign Management API.
/// The queue is the `apple_ads_imports` table: one job per app, claimed with a lease so one
/// instance imports an app at a time, with a cursor so a restart resumes the run where the
/// last stored window ended. A first run backfills, later runs re-read the recent days Apple
/// revises, and each stored window replaces what the importer stored for those days.
public final class SpendImporter: Sendable {
  let spend: any AppleAdsSpendRepository
  let api: any CampaignManagementAPI
  let secrets: SecretBox?
  let time: any TimeSource
  let logger: Logger
  let policy: SpendImportPolicy
  let settings: @Sendable (Int64) -> AppleAdsAPISettings?
  let webhooks: @Sendable (Int64) -> [WebhookConfig]
  /// This process's name on the leases it takes.
  let owner = "importer-" + Digest.hex(Digest.randomBytes(6))
  private let auth = Mutex<[Int64: Auth]>([:])
  private let loop = BackgroundPasses()
  /// When the importer last planned to wake for the next due job (what `wake(at:)` was asked).
  private let plannedWake = Mutex<Date?>(nil)

  /// The secret and access token an app's current credentials produced.
  private struct Auth {
    var identity: String
    var secret: ClientSecret?
    var token: AdsAccessToken?
  }

  /// What a run needs: the app's identifiers and its private key, opened.
  private struct Credentials {
    var appId: Int64
    var settings: AppleAdsAPISettings
    var key: ECKey
    var identity: String
  }

  /// Another instance holds the job now: this run ends without an outcome.
  private struct LeaseLost: Error {}

  /// Why a run stopped for good (until the credentials or the configuration change).
  private struct Stop: Error {
    var failure: String
    var message: String
  }

  /// Creates an importer; `settings` and `webhooks` read the app's current configuration.
  public init(
    spend: any AppleAdsSpendRepository, api: any CampaignManagementAPI, secrets: SecretBox?, time: any TimeSource,
    logger: Logger,
    policy: SpendImportPolicy = SpendImportPolicy(),
    settings: @escaping @Sendable (Int64) -> AppleAdsAPISettings?,
    webhooks: @escaping @Sendable (Int64) -> [WebhookConfig] = { _ in [] }
  ) {
    self.spend = spend
    self.api = api
    self.secrets = secrets
    self.time = time
    self.logger = logger
    self.policy = policy
    self.settings = settings
    self.webhooks = webhooks
    loop.bind { [weak self] in await self?.processDue() ?? 0 }
  }

  /// One pass: runs every due import, one after the other, then plans to wake when the next
  /// one is due. Returns how many ran.
  @discardableResult
  public func processDue() async -> Int {
    var ran = 0
    defer { planWake() }
    while ran < 16 {
      let now = time.now()
      let job: SpendImportJob?
      do {
        // A read first: the poll finds nothing due most of the time, and then writes nothing.
        guard let due = try spend.nextSpendImportDue(), due <= now else { return ran }
        job = try spend.claimSpendImport(now: now, leaseUntil: now.addingTimeInterval(policy.lease), owner: owner)
      } catch {
        logger.error("apple ads spend: cannot claim an import: \(error)")
        return ran
      }
      guard let job else { return ran }
      await run(job)
      ran += 1
    }
    return ran
  }

  /// Wakes the passes when the earliest scheduled job falls due (a `Retry-After` of 3 s is
  /// 3 s, not the next poll), if sooner than the next poll.
  private func planWake() {
    guard let due = try? spend.nextSpendImportDue() else {
      plannedWake.withLock { $0 = nil }
      return
    }
    plannedWake.withLock { $0 = due }
    loop.wake(after: max(0, due.timeIntervalSince(time.now())))
  }

  /// When the importer plans to look for due jobs next, besides its poll (nil: none scheduled).
  public var nextWake: Date? { plannedWake.withLock { $0 } }

  /// Runs one claimed import to its end (or to a failure) and records the outcome.
  func run(_ job: SpendImportJob) async {
    let outcome: SpendImportOutcome
    do {
      let credentials = try open(job)
      guard let days = try await importDays(job, credentials) else { return }
      logger.info(
        "apple ads spend: app \(job.appId): imported \(PlacementReport.isoDay(days.lowerBound))…\(PlacementReport.isoDay(days.upperBound))"
      )
      outcome = .completed(next: time.now().addingTimeInterval(Double(credentials.settings.everyHours) * 3_600))
    } catch let stop as Stop {
      logger.warn("apple ads spend: app \(job.appId): stopped (\(stop.failure)): \(stop.message)")
      outcome = .failed(failure: stop.failure, error: stop.message)
    } catch let error as AppleAdsAPIError {
      outcome = decide(error, job: job)
    } catch is LeaseLost {
      logger.warn("apple ads spend: app \(job.appId): another instance took the import over")
      return
    } catch {
      // A store error: the lease runs out and the run resumes from its cursor.
      logger.error("apple ads spend: app \(job.appId): \(error)")
      return
    }
    do {
      try spend.finishSpendImport(
        appId: job.appId, owner: owner, outcome, events: Self.events(of: outcome), webhooks: webhooks(job.appId),
        at: time.now())
    } catch {
      logger.error("apple ads spend: app \(job.appId): cannot record the outcome: \(error)")
    }
  }

  /// A stopped import tells the app's webhooks (`apple_ads.import_failed`).
  static func events(of outcome: SpendImportOutcome) -> [PendingWebhookEvent] {
    guard case .failed(let failure, let error) = outcome else { return [] }
    let data = JSONValue.object(["failure": .string(failure), "error": .string(error)])
    return [PendingWebhookEvent(type: .appleAdsImportFailed, profileId: "", data: data)]
  }

  private func decide(_ error: AppleAdsAPIError, job: SpendImportJob) -> SpendImportOutcome {
    let backoff = min(policy.maximumRetry, policy.firstRetry * pow(2, Double(min(job.attempts, 20))))
    switch error {
    case .credentials(let message):
      logger.warn("apple ads spend: app \(job.appId): stopped (credentials): \(message)")
      return .failed(failure: "credentials", error: message)
    case .unauthorized(let message):
      logger.warn("apple ads spend: app \(job.appId): stopped (credentials): \(message)")
      return .failed(failure: "credentials", error: "a fresh access token was refused too: \(message)")
    case .rejected(let message):
      logger.warn("apple ads spend: app \(job.appId): stopped (api): \(message)")
      return .failed(failure: "api", error: message)
    case .rateLimited(let wait, let message):
      logger.info("apple ads spend: app \(job.appId): rate limited, next try in \(Int(wait ?? backoff)) s")
      return .retry(next: time.now().addingTimeInterval(max(1, wait ?? backoff)), error: message)
    case .unavailable(let message), .unexpected(let message):
      logger.warn("apple ads spend: app \(job.appId): \(message); next try in \(Int(backoff)) s")
      return .retry(next: time.now().addingTimeInterval(backoff), error: message)
    }
  }

  /// The app's identifiers and key, or why the import cannot run.
  private func open(_ job: SpendImportJob) throws -> Credentials {
    guard let settings = settings(job.appId) else {
      throw Stop(failure: "configuration", message: "the app's configuration has no apple_ads_api section")
    }
    guard let secrets else {
      throw Stop(failure: "configuration", message: "the server has no secrets key to open the private key with")
    }
    guard let stored = try spend.adsCredentials(appId: job.appId) else {
      throw Stop(failure: "credentials", message: "no private key was uploaded")
    }
    let key: ECKey
    do {
      key = try ECKey(privatePEM: try secrets.open(stored.sealedKey))
    } catch {
      throw Stop(failure: "credentials", message: "the stored private key does not open: \(error)")
    }
    return Credentials(
      appId: job.appId, settings: settings, key: key, identity: settings.identity + "|" + stored.keyFingerprint)
  }

  /// Fetches and stores the run's windows from its cursor on; nil when the lease was lost.
  private func importDays(_ job: SpendImportJob, _ credentials: Credentials) async throws -> ClosedRange<Int64>? {
    let today = StatsDay.of(time.now())
    var first: Int64
    var last: Int64
    var cursor: Int64
    if let resumed = job.cursorDay, let runFirst = job.runFirstDay, let runLast = job.runLastDay, resumed <= runLast {
      (first, last, cursor) = (runFirst, runLast, resumed)
      // A run resumed days later: Apple serves daily rows up to 90 days back, so it starts
      // there at the earliest, and it goes on to today.
      if cursor < today - 89 || last < today {
        (first, cursor, last) = (max(cursor, today - 89), max(cursor, today - 89), max(last, today))
        guard try spend.beginSpendImportRun(appId: job.appId, owner: owner, days: first...last, at: time.now())
        else { return nil }
      }
    } else {
      // A first run reads `backfill_days` up to today; a later one the `refresh_days` complete
      // days before today (the days Apple revises), and today's incomplete figures.
      (first, last) =
        job.backfilled
        ? (today - min(credentials.settings.refreshDays, 89), today)
        : (today - min(credentials.settings.backfillDays, 90) + 1, today)
      cursor = first
      guard try spend.beginSpendImportRun(appId: job.appId, owner: owner, days: first...last, at: time.now()) else {
        return nil
      }
    }
    while cursor <= last {
      let window = cursor...min(cursor + policy.windowDays - 1, last)
      let (figures, names, skipped) = try await fetch(window, credentials)
      for reason in skipped {
        logger.warn("apple ads spend: app \(job.appId): left out an unreadable report row: \(reason)")
      }
      let stored = try spend.storeSpendWindow(
        appId: job.appId, owner: owner, days: window, figures: figures, names: names, skipped: skipped,
        leaseUntil: time.now().addingTimeInterval(policy.lease), at: time.now())
      guard stored else {
        logger.warn("apple ads spend: app \(job.appId): another instance took the import over")
        return nil
      }
      cursor = window.upperBound + 1
    }
    return first...last
  }

  /// Every level's rows over `days`: campaigns, then each campaign's ad groups and keywords.
  private func fetch(_ days: ClosedRange<Int64>, _ credentials: Credentials) async throws -> (
    [SpendFigure], [AdsEntityName], [String]
  ) {
    let campaigns = try await pages("reports/campaigns", .campaign, campaign: nil, days, credentials)
    var figures = campaigns.figures
    var names = campaigns.names
    var skipped = campaigns.skipped
    for campaign in Set(campaigns.figures.map(\.campaignId)).sorted() {
      for (path, level) in [("adgroups", SpendLevel.adGroup), ("keywords", .keyword)] {
        let page = try await pages(
          "reports/campaigns/\(campaign)/\(path)", level, campaign: campaign, days, credentials)
        figures += page.figures
        names += page.names
        skipped += page.skipped.map { "campaign \(campaign): \($0)" }
      }
    }
    // Rows of days without any activity say nothing.
    figures.removeAll { $0.spend == 0 && $0.impressions == 0 && $0.taps == 0 && $0.totalInstalls == 0 }
    return (figures, names, skipped)
  }

  /// Every page of one report, the lease renewed after each.
  private func pages(
    _ path: String, _ level: SpendLevel, campaign: Int64?, _ days: ClosedRange<Int64>, _ credentials: Credentials
  ) async throws -> (figures: [SpendFigure], names: [AdsEntityName], skipped: [String]) {
    var figures: [SpendFigure] = []
    var names: [AdsEntityName] = []
    var skipped: [String] = []
    var offset = 0
    while true {
      let body = ReportingRequestBody(days: days, level: level, offset: offset, limit: policy.pageSize)
      let data = try await call(path, body, credentials)
      let page = try CampaignReportPage.decode(data, level: level, campaignId: campaign)
      figures += page.figures
      names += page.names
      skipped += page.skipped
      offset += page.rowCount
      if page.rowCount == 0 || offset >= page.totalResults { return (figures, names, skipped) }
    }
  }

  /// Extends the lease, noting this instance is alive; throws `LeaseLost` when another took it.
  private func renewLease(_ appId: Int64) throws {
    let now = time.now()
    guard
      try spend.renewSpendImportLease(appId: appId, owner: owner, until: now.addingTimeInterval(policy.lease), at: now)
    else { throw LeaseLost() }
  }

  /// One report call; a 401 gets one new access token and one more try.
  private func call(_ path: String, _ body: ReportingRequestBody, _ credentials: Credentials) async throws -> Data {
    let token = try await accessToken(credentials, renew: false)
    try renewLease(credentials.appId)
    do {
      return try await api.report(path: path, orgId: credentials.settings.orgId, accessToken: token, body: body)
    } catch .unauthorized {
      let fresh = try await accessToken(credentials, renew: true)
      return try await api.report(path: path, orgId: credentials.settings.orgId, accessToken: fresh, body: body)
    }
  }

  /// The cached access token while it has a minute left (unless `renew`), else a new one —
  /// from the cached client secret while it has a day left, else from a newly signed one.
  private func accessToken(_ credentials: Credentials, renew: Bool) async throws -> String {
    let now = time.now()
    let cached = auth.withLock { $0[credentials.appId] }.flatMap { $0.identity == credentials.identity ? $0 : nil }
    if !renew, let token = cached?.token, token.expiresAt.timeIntervalSince(now) > 60 { return token.token }
    var secret = cached?.secret
    if secret?.isFresh(at: now) != true {
      secret = try ClientSecret.make(
        settings: credentials.settings, key: credentials.key, now: now, lifetime: policy.secretLifetime)
    }
    guard let secret else { throw Stop(failure: "credentials", message: "no client secret") }
    let token = try await api.accessToken(clientId: credentials.settings.clientId, clientSecret: secret.token, now: now)
    auth.withLock { $0[credentials.appId] = Auth(identity: credentials.identity, secret: secret, token: token) }
    try? spend.markAdsCredentialsUsed(appId: credentials.appId, at: now)
    return token.token
  }

  /// Forgets an app's cached tokens (its credentials changed).
  func forget(appId: Int64) { auth.withLock { $0[appId] = nil } }

  /// Looks for due jobs every `interval` seconds (credentials or run requests another process
  /// stored), and at once after `kick()` or when the earliest scheduled job falls due.
  public func start(interval: TimeInterval = 5) { loop.start(interval: interval) }

  /// Runs a pass now; passes never overlap.
  public func kick() { loop.kick() }

  /// Waits (up to `timeout` seconds) until no pass started by `kick()` is running.
  public func waitUntilIdle(timeout: TimeInterval = 10) { loop.waitUntilIdle(timeout: timeout) }

  /// Stops the timer and waits for a running pass; an unfinished run resumes at the next start.
  public func stop() { loop.stop() }
}
