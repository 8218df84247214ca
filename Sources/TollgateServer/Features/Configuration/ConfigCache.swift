import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Compiled configurations, bound to the saved lists their rules name, and pre-rendered
/// default-audience responses, held in memory per app and dropped when the app's revision or
/// its lists change (on apply through this server at once, otherwise at the next `refresh()`,
/// which the server runs on every announcement and every second).
package final class ConfigCache: Sendable {
  /// A compiled config plus the exact bytes served for its default-audience routes.
  final class Entry: Sendable {
    let config: CompiledConfig
    /// The app's count of list changes when its lists were read.
    let listsRevision: Int64
    /// Default answers by placement and chosen remote-config locale ("" when none).
    private let defaults: Mutex<[String: RenderedResponse]> = Mutex([:])

    init(config: CompiledConfig, listsRevision: Int64) {
      self.config = config
      self.listsRevision = listsRevision
    }

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
      let response = PlacementAnswers.defaultResponse(config: config, placement: placement, locale: chosen)
      let rendered = RenderedResponse(body: WireCoding.encode(response))
      defaults.withLock { $0[key] = rendered }
      return rendered
    }
  }

  private let apps: any AppRepository, documents: any ConfigRepository, savedLists: any SavedListRepository
  private let entries = Mutex<[Int64: Entry]>([:])
  /// Lists read, by app and id, with the checksum they were read at: a change to one list
  /// reads that one again, not every list of the app.
  private let lists = Mutex<[Int64: [String: (checksum: String, list: SavedList)]]>([:])
  /// One load at a time: a million-value list is read and indexed once, not by every request
  /// that finds the entry missing.
  private let loading = Mutex<Void>(())

  package init(apps: any AppRepository, documents: any ConfigRepository, savedLists: any SavedListRepository) {
    self.apps = apps
    self.documents = documents
    self.savedLists = savedLists
  }

  /// The app's current compiled config, or nil when it has none yet.
  func entry(appId: Int64) throws -> Entry? {
    if let cached = entries.withLock({ $0[appId] }) { return cached }
    return try loading.withLock { _ in
      if let cached = entries.withLock({ $0[appId] }) { return cached }
      // Counted before reading: a list changed meanwhile makes this entry stale at once.
      let listsRevision = try savedLists.listRevisions()[appId] ?? 0
      guard let record = try documents.currentConfig(appId: appId) else { return nil }
      // A stored document was validated when applied; failing now means the validator got
      // stricter, which is reported instead of serving half a config.
      let config = try ConfigValidator.compile(record.document, revision: record.revision)
      return keepNewest(appId: appId, Entry(config: try bound(config, appId: appId), listsRevision: listsRevision))
    }
  }

  /// Installs a config applied through this server (read again on the next request when its
  /// lists cannot be read now).
  func install(appId: Int64, config: CompiledConfig) {
    loading.withLock { _ in
      guard let listsRevision = try? savedLists.listRevisions()[appId] ?? 0,
        let bound = try? bound(config, appId: appId)
      else {
        _ = entries.withLock { $0.removeValue(forKey: appId) }
        return
      }
      _ = keepNewest(appId: appId, Entry(config: bound, listsRevision: listsRevision))
    }
  }

  /// The config with the values of the saved lists it names: lists whose checksum is the
  /// one already read are reused.
  private func bound(_ config: CompiledConfig, appId: Int64) throws -> CompiledConfig {
    guard !config.savedLists.isEmpty else { return config }
    let wanted = Set(config.savedLists.keys)
    let infos = try savedLists.savedListInfos(appId: appId).filter { wanted.contains($0.id) }
    var held = lists.withLock { $0[appId] ?? [:] }
    let stale = infos.filter { held[$0.id]?.checksum != $0.checksum }.map(\.id)
    for (id, read) in try savedLists.savedListValues(appId: appId, ids: stale) {
      held[id] = (read.info.checksum, SavedList(id: id, values: read.values.values))
    }
    let present = Set(infos.map(\.id))
    held = held.filter { present.contains($0.key) }
    let kept = held
    lists.withLock { $0[appId] = kept }
    return config.binding(held.mapValues(\.list))
  }

  /// Two threads may load or apply at once: the newer state always wins.
  private func keepNewest(appId: Int64, _ candidate: Entry) -> Entry {
    entries.withLock { entries in
      if let existing = entries[appId],
        (existing.config.revision, existing.listsRevision) >= (candidate.config.revision, candidate.listsRevision)
      {
        return existing
      }
      entries[appId] = candidate
      return candidate
    }
  }

  /// Drops entries whose revision or lists are no longer current (changed elsewhere).
  func refresh() throws {
    let current = try apps.revisions()
    let listRevisions = try savedLists.listRevisions()
    entries.withLock { entries in
      entries = entries.filter {
        current[$0.key] == $0.value.config.revision && (listRevisions[$0.key] ?? 0) == $0.value.listsRevision
      }
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
