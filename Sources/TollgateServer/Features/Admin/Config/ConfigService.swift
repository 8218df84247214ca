import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of configuration: a document is validated whole and applied atomically as the
/// next revision (new webhooks get signing secrets, shown once); every revision is kept, and a
/// rollback applies an old document again as a new revision. The cache serves the new
/// revision at once on this instance; other instances hear of it.
final class ConfigService: Sendable {
  let importer: ConfigImporter
  let apps: any AppRepository
  let documents: any ConfigRepository
  let configs: ConfigCache
  let time: any TimeSource
  let logger: Logger

  init(
    importer: ConfigImporter, apps: any AppRepository, documents: any ConfigRepository, configs: ConfigCache,
    time: any TimeSource, logger: Logger
  ) {
    self.importer = importer
    self.apps = apps
    self.documents = documents
    self.configs = configs
    self.time = time
    self.logger = logger
  }

  /// The app of the key.
  func app(appId: Int64) throws -> AppRecord {
    guard let app = try apps.app(id: appId) else {
      throw DomainError.notFound(.appNotFound, "The app of this key no longer exists.")
    }
    return app
  }

  /// Validates and applies `document` as the next revision; returns it with the secrets of
  /// webhooks new in it.
  func apply(_ document: Data, appId: Int64, by actor: String) throws -> (CompiledConfig, [String: String]) {
    let (config, secrets) = try importer.applyReturningSecrets(document, appId: appId, by: actor)
    configs.install(appId: appId, config: config)
    logger.info("app \(appId): configuration revision \(config.revision) applied")
    return (config, secrets)
  }

  /// The current document, else 404 `config_not_found`.
  func current(appId: Int64) throws -> ConfigRecord {
    guard let record = try documents.currentConfig(appId: appId) else {
      throw DomainError.notFound(.configNotFound, "This app has no configuration yet.")
    }
    return record
  }

  /// Applied revisions, newest first, and the current revision.
  func history(appId: Int64, limit: Int) throws -> (revisions: [ConfigRevisionRecord], current: Int64?) {
    let current = try apps.app(id: appId)?.revision
    return (try documents.configHistory(appId: appId, limit: limit), current)
  }

  /// One applied revision's document, else 404 `revision_not_found`.
  func revision(appId: Int64, _ text: String) throws -> ConfigRecord {
    guard let revision = Int64(text), let record = try documents.config(appId: appId, revision: revision) else {
      throw DomainError.notFound(.revisionNotFound, "This app has no configuration revision \(text).")
    }
    return record
  }

  /// Applies an old revision's document again, as a new revision.
  func rollback(appId: Int64, to revision: Int64, by actor: String) throws -> CompiledConfig {
    guard let record = try documents.config(appId: appId, revision: revision) else {
      throw DomainError.notFound(.revisionNotFound, "This app has no configuration revision \(revision).")
    }
    let (config, _) = try importer.applyReturningSecrets(
      record.document, appId: appId, by: actor, note: "rollback to \(revision)")
    configs.install(appId: appId, config: config)
    logger.info("app \(appId): configuration revision \(config.revision) applied (rollback to \(revision))")
    return config
  }
}
