import Foundation

/// Validates a configuration document and stores it as the app's next revision; used by
/// `PUT /v1/admin/config` and `tollgate import`, so both accept exactly the same documents.
public struct ConfigImporter: Sendable {
  let store: any Store
  let time: any TimeSource

  /// Creates an importer.
  public init(store: any Store, time: any TimeSource = SystemTimeSource()) {
    self.store = store
    self.time = time
  }

  /// Validates the whole document (throws 400/422 `HTTPError` listing every problem, and
  /// changes nothing), then applies it atomically. Returns the compiled config.
  public func apply(_ document: Data, appId: Int64) throws -> CompiledConfig {
    var config = try ConfigValidator.compile(document, revision: 0)
    config.revision = try store.applyConfig(appId: appId, document: document, at: time.now())
    return config
  }
}
