import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The rules of placements: which flow a profile sees (first matching audience, stored A/B
/// variation), the default-audience answer everyone shares, and the fallback file — all from
/// the configuration cached in memory by revision, answered with pre-rendered bytes.
final class PlacementService: Sendable {
  let configs: ConfigCache
  let resolver: PlacementResolver
  let assetFiles: any AssetRepository
  let time: any TimeSource
  /// The fallback file's images per app, for the revision they were read for: images never
  /// change (content-addressed) and only a new revision changes which ones are referenced, so
  /// the database is read once per revision, not per request.
  private let fallbackImages = Mutex<[Int64: (revision: Int64, images: [String: String]?)]>([:])

  init(
    assignments: any AssignmentRepository, assetFiles: any AssetRepository, configs: ConfigCache, time: any TimeSource,
    logger: Logger
  ) {
    self.configs = configs
    self.assetFiles = assetFiles
    self.resolver = PlacementResolver(assignments: assignments, logger: logger)
    self.time = time
  }

  /// The app's cached configuration and the placement in it, else 404 `placement_not_found`.
  func placement(appId: Int64, id: String) throws -> (entry: ConfigCache.Entry, placement: CompiledConfig.Placement) {
    guard let entry = try configs.entry(appId: appId), let placement = entry.config.placements[id] else {
      throw Self.notFound(id)
    }
    return (entry, placement)
  }

  /// The answer's bytes for this profile: audience, variation (stored once chosen), flow
  /// with the remote config of the best locale.
  func resolve(
    _ found: (entry: ConfigCache.Entry, placement: CompiledConfig.Placement), appId: Int64, profile: TargetingView,
    locale: String?
  ) throws -> Data {
    try resolver.resolveRendered(
      found.placement, entry: found.entry, appId: appId, profile: profile,
      locale: locale ?? profile.locale(found.entry.config.targeting), now: time.now())
  }

  /// The default-audience answer: identical bytes for everyone, with their ETag.
  func defaultAnswer(appId: Int64, placementId: String, locale: String?) throws -> RenderedResponse {
    // The rendered answer alone: a placement unknown to the entry renders none (no copy of the
    // placement made only to check it is there).
    guard let entry = try configs.entry(appId: appId),
      let rendered = entry.defaultResponse(placementId: placementId, locale: locale)
    else { throw Self.notFound(placementId) }
    return rendered
  }

  /// Every placement's default flow in every locale, with the documents' small images: what
  /// `setFallback(fileURL:)` loads.
  func fallbackFile(appId: Int64) throws -> FallbackFile {
    guard let entry = try configs.entry(appId: appId) else {
      throw DomainError.notFound(.configNotFound, "This app has no configuration yet; import one first.")
    }
    var file = PlacementAnswers.fallbackFile(config: entry.config, generatedAt: time.now())
    let revision = entry.config.revision
    if let cached = fallbackImages.withLock({ $0[appId] }), cached.revision == revision {
      file.assets = cached.images
    } else {
      file.assets = try FallbackAssets.images(
        of: file, budget: FallbackFile.assetBudget, asset: assetFiles.asset(sha256:))
      fallbackImages.withLock { $0[appId] = (revision, file.assets) }
    }
    return file
  }

  static func notFound(_ id: String) -> DomainError {
    .notFound(.placementNotFound, "No placement \(id) in this app's configuration.")
  }
}
