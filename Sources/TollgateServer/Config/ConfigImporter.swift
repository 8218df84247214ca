import Foundation

/// Validates a configuration document and stores it as the app's next revision; used by
/// `PUT /v1/admin/config` and `tollgate import`, so both accept exactly the same documents.
public struct ConfigImporter: Sendable {
  let store: any Store
  let time: any TimeSource
  /// Seals new webhooks' signing secrets; a document with webhooks needs one.
  let secrets: SecretBox?

  /// Creates an importer.
  public init(store: any Store, time: any TimeSource = SystemTimeSource(), secrets: SecretBox? = nil) {
    self.store = store
    self.time = time
    self.secrets = secrets
  }

  /// Validates the whole document (throws 400/422 `HTTPError` listing every problem, and
  /// changes nothing), then applies it atomically. Returns the compiled config.
  public func apply(_ document: Data, appId: Int64) throws -> CompiledConfig {
    try applyReturningSecrets(document, appId: appId).config
  }

  /// Like `apply`, and returns the signing secrets created for webhooks seen for the first
  /// time, in clear: the only time they are shown.
  public func applyReturningSecrets(_ document: Data, appId: Int64) throws -> (
    config: CompiledConfig, newSecrets: [String: String]
  ) {
    var config = try ConfigValidator.compile(document, revision: 0)
    if !config.webhooks.isEmpty && secrets == nil {
      throw HTTPError(
        422, "secrets_key_missing", "Webhooks need the server's secrets key to seal their signing secrets.")
    }
    config.revision = try store.applyConfig(appId: appId, document: document, at: time.now())
    guard let secrets, !config.webhooks.isEmpty else { return (config, [:]) }
    let created = try store.ensureWebhookSecrets(
      appId: appId, ids: config.webhooks.map(\.id), box: secrets, at: time.now())
    return (config, created)
  }
}
