import Foundation
import Synchronization
import TollgateAPI

/// Compiled configurations and pre-rendered default-audience responses, held in memory per
/// app and dropped when the app's revision changes (on apply through this server at once,
/// otherwise at the next `refresh()`, which the server runs every second).
final class ConfigCache: Sendable {
  /// A compiled config plus the exact bytes served for its default-audience routes.
  final class Entry: Sendable {
    let config: CompiledConfig
    /// Default answers by placement and chosen remote-config locale ("" when none).
    private let defaults: Mutex<[String: RenderedResponse]> = Mutex([:])

    init(config: CompiledConfig) { self.config = config }

    /// Rendered answers by placement and the locale exactly as requested, so a repeated
    /// request skips locale matching; bounded, since clients choose the locale text.
    private let byRequest: Mutex<[String: RenderedResponse]> = Mutex([:])
    static let maxRequestKeys = 4_096

    /// The rendered default answer for a placement and requested locale.
    func defaultResponse(placementId: String, locale: String?) -> RenderedResponse? {
      let requestKey = "\(placementId)\n\(locale ?? "")"
      if let hit = byRequest.withLock({ $0[requestKey] }) { return hit }
      guard let rendered = render(placementId: placementId, locale: locale) else { return nil }
      byRequest.withLock { cache in
        if cache.count < Self.maxRequestKeys { cache[requestKey] = rendered }
      }
      return rendered
    }

    /// Segmented answers as bytes, by variation, A/B test and requested locale: an answer
    /// depends on nothing else within a revision, so resolution ends in a lookup.
    private let answers: Mutex<[String: Data]> = Mutex([:])

    /// The bytes of `response()`, rendered once per key.
    func answer(variationId: String, abTestName: String?, locale: String?, _ response: () -> PlacementFlowResponse)
      -> Data
    {
      let key = "\(variationId)\n\(abTestName ?? "")\n\(locale ?? "")"
      if let hit = answers.withLock({ $0[key] }) { return hit }
      let bytes = WireCoding.encode(response())
      answers.withLock { cache in
        if cache.count < Self.maxRequestKeys { cache[key] = bytes }
      }
      return bytes
    }

    private func render(placementId: String, locale: String?) -> RenderedResponse? {
      guard let placement = config.placements[placementId] else { return nil }
      let flow = config.flows[placement.defaultVariation.flowId]
      let chosen = flow.flatMap { LocaleMatcher.best(for: locale, among: $0.remoteConfigs.keys) } ?? ""
      let key = "\(placementId)\n\(chosen)"
      if let cached = defaults.withLock({ $0[key] }) { return cached }
      let response = PlacementResolver.defaultResponse(config: config, placement: placement, locale: chosen)
      let rendered = RenderedResponse(body: WireCoding.encode(response))
      defaults.withLock { $0[key] = rendered }
      return rendered
    }
  }

  private let store: any Store
  private let entries = Mutex<[Int64: Entry]>([:])

  init(store: any Store) { self.store = store }

  /// The app's current compiled config, or nil when it has none yet.
  func entry(appId: Int64) throws -> Entry? {
    if let cached = entries.withLock({ $0[appId] }) { return cached }
    guard let record = try store.currentConfig(appId: appId) else { return nil }
    // A stored document was validated when applied; failing now means the validator got
    // stricter, which is reported instead of serving half a config.
    let config = try ConfigValidator.compile(record.document, revision: record.revision)
    return keepNewest(appId: appId, Entry(config: config))
  }

  /// Installs a config applied through this server.
  func install(appId: Int64, config: CompiledConfig) {
    _ = keepNewest(appId: appId, Entry(config: config))
  }

  /// Two threads may load or apply at once: the higher revision always wins.
  private func keepNewest(appId: Int64, _ candidate: Entry) -> Entry {
    entries.withLock { entries in
      if let existing = entries[appId], existing.config.revision >= candidate.config.revision {
        return existing
      }
      entries[appId] = candidate
      return candidate
    }
  }

  /// Drops entries whose revision is no longer current (another process applied one).
  func refresh() throws {
    let current = try store.revisions()
    entries.withLock { entries in
      entries = entries.filter { current[$0.key] == $0.value.config.revision }
    }
  }
}

/// Bytes served verbatim, with their strong ETag.
struct RenderedResponse: Sendable {
  let body: Data
  let etag: String

  init(body: Data) {
    self.body = body
    self.etag = "\"\(Digest.hex(Array(Digest.sha256(body).prefix(16))))\""
  }
}
