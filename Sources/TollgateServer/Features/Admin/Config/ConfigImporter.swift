import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Validates a configuration document and stores it as the app's next revision; used by
/// `PUT /v1/admin/config` and `tollgate import`, so both accept exactly the same documents.
public struct ConfigImporter: Sendable {
  let apps: any AppRepository
  let documents: any ConfigRepository
  let outbox: any WebhookOutboxRepository
  let assetFiles: any AssetRepository
  let savedLists: any SavedListRepository
  let time: any TimeSource
  /// Seals new webhooks' signing secrets; a document with webhooks needs one.
  let secrets: SecretBox?

  /// Creates an importer.
  public init(
    apps: any AppRepository, documents: any ConfigRepository, outbox: any WebhookOutboxRepository,
    assetFiles: any AssetRepository, savedLists: any SavedListRepository, time: any TimeSource = SystemTimeSource(),
    secrets: SecretBox? = nil
  ) {
    self.apps = apps
    self.documents = documents
    self.outbox = outbox
    self.assetFiles = assetFiles
    self.savedLists = savedLists
    self.time = time
    self.secrets = secrets
  }

  /// Validates the whole document (throws 400/422 `DomainError` listing every problem, and
  /// changes nothing), then applies it atomically. Returns the compiled config.
  public func apply(_ document: Data, appId: Int64, by actor: String = "cli") throws -> CompiledConfig {
    try applyReturningSecrets(document, appId: appId, by: actor).config
  }

  /// Every image a paywall document references was uploaded (422 `invalid_config` at each
  /// reference otherwise): a design is never applied with a hole in it.
  func requireAssets(_ document: Data) throws {
    guard let root = try? WireCoding.decoder.decode(JSONValue.self, from: document) else { return }
    var problems: [APIError.Detail] = []
    for (index, flow) in (root.objectValue?["flows"]?.arrayValue ?? []).enumerated() {
      guard let paywall = flow.objectValue?["paywall"]?.objectValue else { continue }
      let references = PaywallDocument.assetReferences(in: .object(paywall))
      for (path, hash) in references where try assetFiles.asset(sha256: hash) == nil {
        problems.append(
          .init(
            path: "$.flows[\(index)].paywall.\(path)",
            message: "no uploaded asset has the SHA-256 \(hash) (POST /v1/admin/assets)"))
      }
    }
    guard problems.isEmpty else { throw DomainError.validation(problems, code: .invalidConfig) }
  }

  /// Every saved list a rule names exists (422 `invalid_config` at its first use otherwise).
  func requireLists(_ config: CompiledConfig, appId: Int64) throws {
    guard !config.savedLists.isEmpty else { return }
    let stored = Set(try savedLists.savedListInfos(appId: appId).map(\.id))
    let problems = config.savedLists.filter { !stored.contains($0.key) }.sorted { $0.value < $1.value }.map {
      APIError.Detail(
        path: $0.value, message: "no saved list \($0.key) in this app (PUT /v1/admin/lists/\($0.key) first)")
    }
    guard problems.isEmpty else { throw DomainError.validation(problems, code: .invalidConfig) }
  }

  /// Like `apply`, and returns the signing secrets created for webhooks seen for the first
  /// time, in clear: the only time they are shown.
  /// `actor` (a key id, or `cli`) and the change against the current revision go into the
  /// history and the audit log; `note` prefixes the summary (a rollback says so).
  public func applyReturningSecrets(_ document: Data, appId: Int64, by actor: String = "cli", note: String? = nil)
    throws -> (config: CompiledConfig, newSecrets: [String: String])
  {
    var config = try ConfigValidator.compile(document, revision: 0)
    try requireAssets(document)
    try requireLists(config, appId: appId)
    if !config.webhooks.isEmpty && secrets == nil {
      throw DomainError(.secretsKeyMissing, "Webhooks need the server's secrets key to seal their signing secrets.")
    }
    let previous = try documents.currentConfig(appId: appId)
    let summary = [note, ConfigDiff.summary(from: previous?.document, to: document)].compactMap { $0 }
      .joined(separator: ": ")
    config.revision = try documents.applyConfig(
      appId: appId, document: document, at: time.now(), by: actor, summary: summary)
    try apps.audit(
      appId: appId,
      AuditRecord(
        at: time.now(), actor: actor, action: note == nil ? "config.applied" : "config.rolled_back",
        detail: AuditDetail.json(["revision": .int(config.revision), "summary": .string(summary)])))
    guard let secrets, !config.webhooks.isEmpty else { return (config, [:]) }
    let created = try outbox.ensureWebhookSecrets(
      appId: appId, ids: config.webhooks.map(\.id), box: secrets, at: time.now())
    return (config, created)
  }
}
