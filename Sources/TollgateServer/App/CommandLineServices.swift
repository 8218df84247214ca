import Foundation
import TollgateDomain
import TollgatePersistence
import TollgateSupport

// What the command line, the development tools and the benchmarks run without a server: the
// same services, each given its repositories from one opened database (in the server the
// composition root, `Service`, does this).

extension ConfigImporter {
  /// An importer over `database`'s repositories.
  public init(database: any Database, time: any TimeSource = SystemTimeSource(), secrets: SecretBox? = nil) {
    self.init(
      apps: database, documents: database, outbox: database, assetFiles: database, savedLists: database, time: time,
      secrets: secrets)
  }
}

extension SavedListService {
  /// The saved lists of `database`.
  public init(database: any Database, time: any TimeSource = SystemTimeSource()) {
    self.init(apps: database, documents: database, savedLists: database, time: time)
  }
}

extension FallbackExport {
  /// The fallback file from `database`'s configuration and images.
  public init(database: any Database, time: any TimeSource = SystemTimeSource()) {
    self.init(documents: database, assetFiles: database, time: time)
  }
}

extension AppleAdsSpendService {
  /// Credentials, status and spend files of `database` (no importer runs in this process).
  public convenience init(database: any Database, secrets: SecretBox?, time: any TimeSource) {
    self.init(
      apps: database, spend: database,
      configs: ConfigCache(apps: database, documents: database, savedLists: database), secrets: secrets, importer: nil,
      time: time)
  }
}

extension AppStoreServerService {
  /// The In-App Purchase key and the recoveries' status of `database` (no recovery runs in
  /// this process: a running server picks up what is due).
  public convenience init(
    database: any Database, secrets: SecretBox?, time: any TimeSource,
    api: any AppStoreServerAPI = AppStoreServerClient(), verifier: SignedDataVerifier = SignedDataVerifier()
  ) {
    self.init(
      apps: database, store: database,
      configs: ConfigCache(apps: database, documents: database, savedLists: database), secrets: secrets, recovery: nil,
      time: time, api: api, verifier: verifier, purchases: database)
  }
}

extension ProfileImportService {
  /// Imports into `database` (a running server fetches the histories it asks for).
  public convenience init(database: any Database, time: any TimeSource = SystemTimeSource()) {
    self.init(imports: database, apps: database, time: time)
  }
}

extension HistoryImporter {
  /// The history import's progress in `database` (no job runs in this process).
  public convenience init(database: any Database, time: any TimeSource = SystemTimeSource()) {
    self.init(
      imports: database, keys: database, api: AppStoreServerClient(), secrets: nil, time: time, logger: Logger(),
      settings: { _ in nil }, record: { _, _ in [] })
  }
}

extension PeopleService {
  /// The people of `database`'s apps, at the recommended password cost.
  public convenience init(database: any Database, time: any TimeSource = SystemTimeSource()) {
    self.init(
      people: database, apps: database, hasher: .recommended, passwords: CommonPasswords.policy,
      policy: SessionPolicy(), time: time)
  }
}

extension SingleSignOnService {
  /// Single sign-on's settings in `database`; `secrets` seals the client secret.
  public convenience init(database: any Database, secrets: SecretBox?, time: any TimeSource = SystemTimeSource()) {
    self.init(
      store: database, apps: database, provider: URLSessionOpenIDClient(), secrets: secrets, sessions: nil, time: time,
      logger: Logger())
  }

  /// The redirect URI to register at the provider for a console at `base`.
  public static func redirectURI(base: String) -> String {
    (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/console/sso/callback"
  }
}
