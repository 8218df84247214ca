import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// What an operator does with the spend import: uploads the private key (sealed at once,
/// never shown again), removes it, reads the importer's status, asks for a run now, imports a
/// spend file. Each change is audited.
public final class AppleAdsSpendService: Sendable {
  let apps: any AppRepository
  let spend: any AppleAdsSpendRepository
  let configs: ConfigCache
  let secrets: SecretBox?
  let importer: SpendImporter?
  let time: any TimeSource

  /// A service; `importer` (nil in the command line) hears about new credentials and run requests.
  package init(
    apps: any AppRepository, spend: any AppleAdsSpendRepository, configs: ConfigCache, secrets: SecretBox?,
    importer: SpendImporter?, time: any TimeSource
  ) {
    self.apps = apps
    self.spend = spend
    self.configs = configs
    self.secrets = secrets
    self.importer = importer
    self.time = time
  }

  /// Seals and stores the private key (PEM, P-256) and schedules an import now.
  public func saveCredentials(appId: Int64, privateKey pem: String, by actor: String) throws -> AppleAdsStatus {
    guard try configs.entry(appId: appId)?.config.appleAdsAPI != nil else {
      throw DomainError(
        .appleAdsNotConfigured,
        "Add apple_ads_api {org_id, client_id, team_id, key_id} to the app's configuration first.")
    }
    guard let secrets else {
      throw DomainError(.secretsKeyMissing, "The server has no secrets key to seal the private key with.")
    }
    let key: ECKey
    do {
      key = try ECKey(privatePEM: pem)
    } catch {
      throw DomainError(
        .invalidPrivateKey,
        "private_key must be the PEM private key (BEGIN EC PRIVATE KEY or BEGIN PRIVATE KEY) on P-256 whose public key was uploaded to Apple Ads: \(error)"
      )
    }
    let fingerprint = Digest.sha256Hex(key.publicPEM)
    try spend.saveAdsCredentials(
      appId: appId, sealedKey: try secrets.seal(key.privatePEM), keyFingerprint: fingerprint, at: time.now())
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "apple_ads.credentials_saved",
        detail: AuditDetail.json(["key_fingerprint": .string(fingerprint)])))
    importer?.forget(appId: appId)
    importer?.kick()
    return try status(appId: appId)
  }

  /// Forgets the key and stops importing (the spend already imported stays).
  public func deleteCredentials(appId: Int64, by actor: String) throws -> AppleAdsStatus {
    guard try spend.deleteAdsCredentials(appId: appId) else {
      throw DomainError.notFound(.credentialsNotFound, "No Apple Ads credentials were uploaded for this app.")
    }
    try apps.audit(
      appId: appId, AuditRecord(at: time.now(), actor: actor, action: "apple_ads.credentials_deleted", detail: "{}"))
    importer?.forget(appId: appId)
    return try status(appId: appId)
  }

  /// Makes the import due now (a stopped one too).
  public func runNow(appId: Int64, by actor: String) throws -> AppleAdsStatus {
    guard try spend.requestSpendImport(appId: appId, at: time.now()) else {
      throw DomainError.notFound(.credentialsNotFound, "No Apple Ads credentials were uploaded for this app.")
    }
    try apps.audit(
      appId: appId, AuditRecord(at: time.now(), actor: actor, action: "apple_ads.import_requested", detail: "{}"))
    importer?.kick()
    return try status(appId: appId)
  }

  /// Whether spend is configured and imported, and how the last run went; never the key.
  public func status(appId: Int64) throws -> AppleAdsStatus {
    let settings = try configs.entry(appId: appId)?.config.appleAdsAPI
    let credentials = try spend.adsCredentials(appId: appId)
    let job = try spend.spendImportJob(appId: appId)
    let now = time.now()
    let lease = importer?.policy.lease ?? SpendImportPolicy().lease
    return AppleAdsStatus(
      configured: settings != nil, orgId: settings?.orgId,
      credentials: credentials.map {
        AppleAdsStatus.Credentials(
          keyFingerprint: $0.keyFingerprint, uploadedAt: Timestamp.string($0.createdAt),
          lastUsedAt: $0.lastUsedAt.map(Timestamp.string))
      },
      importer: job.map { job in
        let state = Self.state(of: job, now: now, lease: lease)
        return AppleAdsStatus.Importer(
          status: state.status, resumesAt: state.resumesAt.map(Timestamp.string),
          nextRunAt: job.status == .failed ? nil : Timestamp.string(job.nextRunAt),
          lastRunAt: job.lastRunAt.map(Timestamp.string), lastSuccessAt: job.lastSuccessAt.map(Timestamp.string),
          lastError: job.lastError, failure: job.failure, backfilled: job.backfilled, rowsImported: job.rowsImported,
          rowsSkipped: job.rowsSkipped, lastSkipped: job.lastSkipped, attempts: job.attempts,
          run: job.cursorDay.flatMap { cursor in
            guard let first = job.runFirstDay, let last = job.runLastDay else { return nil }
            return AppleAdsStatus.Run(
              from: StatsDay.isoDay(first), to: StatsDay.isoDay(last), nextDay: StatsDay.isoDay(cursor))
          })
      })
  }

  /// `failed`; `running` while the lease holder renews its lease (at least every half lease:
  /// it renews before every call to Apple, and calls time out sooner); `interrupted` when a
  /// held lease went unrenewed that long — its instance stopped — with when the run resumes
  /// (the lease's end); else `scheduled`.
  static func state(of job: SpendImportJob, now: Date, lease: TimeInterval) -> (status: String, resumesAt: Date?) {
    if job.status == .failed { return ("failed", nil) }
    guard job.leaseUntil > now else { return ("scheduled", nil) }
    let renewed = job.leaseRenewedAt ?? job.leaseUntil.addingTimeInterval(-lease)
    if now.timeIntervalSince(renewed) <= lease / 2 { return ("running", nil) }
    return ("interrupted", job.leaseUntil)
  }

  /// Upserts a spend file's rows; returns what it held.
  public func importFile(appId: Int64, data: Data, by actor: String) throws -> SpendFileSummary {
    let (figures, names) = try SpendFile.parse(data)
    try spend.importSpendFile(appId: appId, figures: figures, names: names, at: time.now())
    let summary = SpendFileSummary(
      rows: figures.count, from: figures.map(\.day).min().map(StatsDay.isoDay),
      to: figures.map(\.day).max().map(StatsDay.isoDay), currencies: Set(figures.map(\.currency)).sorted())
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: "apple_ads.spend_file_imported",
        detail: AuditDetail.json(["rows": .int(Int64(figures.count))])))
    return summary
  }
}

/// What a spend file held.
public struct SpendFileSummary: Codable, Sendable, Hashable {
  public var rows: Int
  public var from: String?
  public var to: String?
  public var currencies: [String]
}

/// `GET /v1/admin/apple-ads/status`: configured, credentials (never the key), the importer.
public struct AppleAdsStatus: Codable, Sendable, Hashable {
  /// The uploaded key, described.
  public struct Credentials: Codable, Sendable, Hashable {
    public var keyFingerprint: String
    public var uploadedAt: String
    public var lastUsedAt: String?

    enum CodingKeys: String, CodingKey {
      case keyFingerprint = "key_fingerprint"
      case uploadedAt = "uploaded_at"
      case lastUsedAt = "last_used_at"
    }
  }

  /// A run in progress: its days and the next one to fetch.
  public struct Run: Codable, Sendable, Hashable {
    public var from: String
    public var to: String
    public var nextDay: String

    enum CodingKeys: String, CodingKey {
      case from, to
      case nextDay = "next_day"
    }
  }

  /// The importer's job.
  public struct Importer: Codable, Sendable, Hashable {
    /// `scheduled`, `running`, `interrupted` (the instance running it stopped: the run resumes
    /// from `run.next_day` at `resumes_at`, when its lease runs out) or `failed` (stopped until
    /// new credentials or a run request).
    public var status: String
    public var resumesAt: String?
    public var nextRunAt: String?
    public var lastRunAt: String?
    public var lastSuccessAt: String?
    public var lastError: String?
    /// `credentials`, `configuration` or `api` when failed.
    public var failure: String?
    public var backfilled: Bool
    public var rowsImported: Int64
    /// Report rows that could not be read and were left out (the rest imported), and why the last one was.
    public var rowsSkipped: Int64
    public var lastSkipped: String?
    public var attempts: Int64
    public var run: Run?

    enum CodingKeys: String, CodingKey {
      case status, failure, backfilled, attempts, run
      case nextRunAt = "next_run_at"
      case lastRunAt = "last_run_at"
      case lastSuccessAt = "last_success_at"
      case lastError = "last_error"
      case rowsImported = "rows_imported"
      case rowsSkipped = "rows_skipped"
      case lastSkipped = "last_skipped"
      case resumesAt = "resumes_at"
    }
  }

  public var configured: Bool
  public var orgId: Int64?
  public var credentials: Credentials?
  public var importer: Importer?

  enum CodingKeys: String, CodingKey {
    case configured, credentials, importer
    case orgId = "org_id"
  }
}
