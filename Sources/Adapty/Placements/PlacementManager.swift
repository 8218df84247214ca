import Foundation
import TollgateAPI

/// Answers `getFlow` and `getFlowForDefaultAudience`: the fetch policy decides whether the
/// cache may answer first; the server gets `loadTimeout` to answer; then the cache, then the
/// fallback file answer; only when all three have nothing does the call fail.
struct PlacementManager: Sendable {
  /// `loadTimeout` when the caller gives none.
  static let defaultLoadTimeout: TimeInterval = 5
  /// `loadTimeout` is never shorter than this.
  static let minimumLoadTimeout: TimeInterval = 1

  let client: BackendClient
  let profiles: ProfileManager
  let cache: FlowCache
  let fallback: FallbackFlows
  let clock: any SDKClock
  /// Where races tell the attribution collector what their waiting request learned.
  let races: AttributionRaceBoard

  /// The flow the profile's audience gets.
  func flow(
    placementId: String, locale: String?, fetchPolicy: AdaptyPlacementFetchPolicy, loadTimeout: TimeInterval?
  ) async throws(AdaptyError) -> AdaptyFlow {
    try await load(.segmented, placementId: placementId, locale: locale, policy: fetchPolicy, loadTimeout: loadTimeout)
  }

  /// Extra seconds past the server's wait before the SDK stops waiting for its answer.
  static let networkGrace: TimeInterval = 1

  /// The first-launch race in one call: the server holds one segmented request until the
  /// attribution is applied or `timeout` passes; the default-audience flow is fetched in
  /// parallel and answers when the segmented request fails or is late; the cache and the
  /// fallback file answer when both fail. Each request is made once.
  func flowAwaitingAttribution(
    placementId: String, locale: String?, provider: AdaptyExternalAttributionProvider, timeout: TimeInterval
  ) async throws(AdaptyError) -> AdaptyFlow {
    let alreadyApplied =
      await profiles.cachedProfile?.appliedExternalAttributionProviders.contains(provider) == true
    guard provider == .appleAds, !alreadyApplied else {
      return try await flow(placementId: placementId, locale: locale, fetchPolicy: .default, loadTimeout: timeout)
    }
    let wait = max(0, timeout)
    let prefetch = Task { () async throws -> AdaptyFlow in
      try await fetchDefault(placementId: placementId, locale: locale)
    }
    let races = races
    await races.begin()
    let segmented = Task { () async throws -> AdaptyFlow in
      do {
        let (flow, profile) = try await fetchSegmented(
          placementId: placementId, locale: locale, waitForAppleAdsMs: Int(wait * 1000))
        if let profile { await profiles.accept(profile) }
        await races.end(with: profile)
        return flow
      } catch {
        await races.end(with: nil)
        throw error
      }
    }
    do {
      if case .value(let flow) = try await clock.race(seconds: wait + Self.networkGrace, { try await segmented.value })
      {
        prefetch.cancel()
        return flow
      }
      Log.info("placement \(placementId): no segmented answer within \(wait) s; using the default audience")
    } catch {
      Log.info("placement \(placementId): segmented request failed (\(error)); using the default audience")
    }
    return try await answer(prefetch, placementId: placementId, locale: locale, loadTimeout: nil)
  }

  /// The default-audience flow (no profile involved; revalidated with its ETag).
  func defaultFlow(
    placementId: String, locale: String?, fetchPolicy: AdaptyPlacementFetchPolicy, loadTimeout: TimeInterval?
  ) async throws(AdaptyError) -> AdaptyFlow {
    try await load(
      .defaultAudience, placementId: placementId, locale: locale, policy: fetchPolicy, loadTimeout: loadTimeout)
  }

  /// The fetch policy's cache answer, else a load from the server raced against `loadTimeout`.
  private func load(
    _ kind: FlowCache.Kind, placementId: String, locale: String?, policy: AdaptyPlacementFetchPolicy,
    loadTimeout: TimeInterval?
  ) async throws(AdaptyError) -> AdaptyFlow {
    if let cached = await cachedFirst(kind, placementId: placementId, locale: locale, policy: policy) {
      return cached
    }
    let load = Task { () async throws -> AdaptyFlow in
      switch kind {
      case .segmented: return try await fetchSegmented(placementId: placementId, locale: locale).flow
      case .defaultAudience: return try await fetchDefault(placementId: placementId, locale: locale)
      }
    }
    return try await answer(load, placementId: placementId, locale: locale, loadTimeout: loadTimeout)
  }

  /// Races the load against `loadTimeout`. A load that loses keeps running and fills the
  /// cache for next time.
  private func answer(
    _ load: Task<AdaptyFlow, any Error>, placementId: String, locale: String?, loadTimeout: TimeInterval?
  ) async throws(AdaptyError) -> AdaptyFlow {
    let timeout = max(Self.minimumLoadTimeout, loadTimeout ?? Self.defaultLoadTimeout)
    let failure: AdaptyError
    do {
      switch try await clock.race(seconds: timeout, { try await load.value }) {
      case .value(let flow): return flow
      case .timedOut:
        failure = AdaptyError(
          .fetchTimeoutError,
          "The server did not answer placement \(placementId) within \(timeout) s and there is no cached or fallback flow."
        )
      }
    } catch let error as AdaptyError {
      failure = error
    } catch {
      failure = AdaptyError(.unknown, "\(error)")
    }
    if let flow = await offlineFlow(placementId: placementId, locale: locale) {
      Log.info("placement \(placementId): \(failure.message) — answering from the \(flow.source.rawValue)")
      return flow
    }
    throw failure
  }

  /// Cache, then fallback file.
  private func offlineFlow(placementId: String, locale: String?) async -> AdaptyFlow? {
    if let entry = await cache.entry(.segmented, placementId: placementId, locale: locale) {
      return entry.flow.with(source: .cache)
    }
    if let entry = await cache.entry(.defaultAudience, placementId: placementId, locale: locale) {
      return entry.flow.with(source: .cache)
    }
    return fallback.flow(placementId: placementId, locale: locale)
  }

  private func cachedFirst(
    _ kind: FlowCache.Kind, placementId: String, locale: String?, policy: AdaptyPlacementFetchPolicy
  ) async -> AdaptyFlow? {
    guard let entry = await cache.entry(kind, placementId: placementId, locale: locale) else { return nil }
    switch policy {
    case .reloadRevalidatingCacheData:
      return nil
    case .returnCacheDataElseLoad:
      return entry.flow.with(source: .cache)
    case .returnCacheDataIfNotExpiredElseLoad(let maxAge):
      return clock.now().timeIntervalSince(entry.storedAt) < maxAge ? entry.flow.with(source: .cache) : nil
    }
  }

  /// The segmented flow, and the profile the server sent with it (on a request that waited).
  private func fetchSegmented(placementId: String, locale: String?, waitForAppleAdsMs: Int? = nil) async throws
    -> (flow: AdaptyFlow, profile: ProfilePayload?)
  {
    // A profile the server lost (a restored database) is created again, once.
    for attempt in 0..<2 {
      let profileId = try await profiles.ensureCreated()
      do {
        let response = try await client.flow(
          placementId: placementId, profileId: profileId, locale: locale, waitForAppleAdsMs: waitForAppleAdsMs)
        let flow = AdaptyFlow(response, source: .segmented)
        await cache.store(
          .init(flow: flow, etag: nil, storedAt: clock.now()), .segmented, placementId: placementId, locale: locale)
        return (flow, response.profile)
      } catch {
        guard error.code == .profileNotFound, attempt == 0 else { throw error.error }
        await profiles.markMissing()
      }
    }
    throw AdaptyError(.unknown, "unreachable")
  }

  private func fetchDefault(placementId: String, locale: String?) async throws -> AdaptyFlow {
    let cached = await cache.entry(.defaultAudience, placementId: placementId, locale: locale)
    do {
      guard
        let (response, etag) = try await client.defaultFlow(
          placementId: placementId, locale: locale, etag: cached?.etag)
      else {
        // 304: the cached bytes are current.
        guard var entry = cached else { throw AdaptyError(.decodingFailed, "304 without a cached flow") }
        entry.storedAt = clock.now()
        await cache.store(entry, .defaultAudience, placementId: placementId, locale: locale)
        return entry.flow.with(source: .defaultAudience)
      }
      let flow = AdaptyFlow(response, source: .defaultAudience)
      await cache.store(
        .init(flow: flow, etag: etag, storedAt: clock.now()), .defaultAudience, placementId: placementId, locale: locale
      )
      return flow
    } catch let failure as BackendClient.Failure {
      throw failure.error
    }
  }
}
