import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Builds the fallback file of an app from its stored configuration (for the CLI, which
/// has no running server's cache).
public struct FallbackExport: Sendable {
  let documents: any ConfigRepository
  let assetFiles: any AssetRepository
  let time: any TimeSource

  /// Creates an exporter.
  public init(
    documents: any ConfigRepository, assetFiles: any AssetRepository, time: any TimeSource = SystemTimeSource()
  ) {
    self.documents = documents
    self.assetFiles = assetFiles
    self.time = time
  }

  /// The fallback file's bytes, or nil when the app has no configuration; the documents'
  /// images are embedded up to `assetBudget` bytes (0 embeds none).
  public func fallbackFile(appId: Int64, assetBudget: Int = FallbackFile.assetBudget) throws -> Data? {
    guard let record = try documents.currentConfig(appId: appId) else { return nil }
    let config = try ConfigValidator.compile(record.document, revision: record.revision)
    let file = PlacementAnswers.fallbackFile(config: config, generatedAt: time.now())
    return WireCoding.encode(try FallbackAssets.embed(in: file, budget: assetBudget, asset: assetFiles.asset(sha256:)))
  }
}
