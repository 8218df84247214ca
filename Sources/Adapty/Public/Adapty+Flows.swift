import Foundation

extension Adapty {
  /// The flow for the profile's audience in a placement.
  ///
  /// The server gets `loadTimeout` seconds (default 5, at least 1); when it fails or is
  /// late, the cached flow answers, else the fallback file's; only when neither has the
  /// placement does the call throw (`fetchTimeoutError` 3101 after a timeout, otherwise the
  /// server's or network's error).
  public nonisolated static func getFlow(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default,
    loadTimeout: TimeInterval? = nil
  ) async throws(AdaptyError) -> AdaptyFlow {
    let runtime = try await Facade.shared.runtime()
    let flow = try await runtime.placements.flow(
      placementId: placementId, locale: locale, fetchPolicy: fetchPolicy, loadTimeout: loadTimeout)
    await runtime.prefetchImages(of: flow)
    return flow
  }

  /// The first-launch paywall in one call: waits up to `timeout` seconds for the
  /// attribution `provider` (Apple Ads) to be applied to the profile and returns the flow
  /// of the audience that then matches. The server holds a single request for the wait; the
  /// default-audience flow is fetched in parallel and answers if that request fails or is
  /// late; the cache and the fallback file answer when the network fails. On later
  /// launches (attribution already applied) it returns at once. `AdaptyFlow.source` says
  /// which path answered; the first launch's answer is reported to the server (which counts,
  /// per Apple Ads campaign, the installs that got their targeted flow in time).
  public nonisolated static func getFlow(
    placementId: String, locale: String? = nil, awaitingAttribution provider: AdaptyExternalAttributionProvider,
    timeout: TimeInterval
  ) async throws(AdaptyError) -> AdaptyFlow {
    let runtime = try await Facade.shared.runtime()
    let races =
      await runtime.profiles.cachedProfile?.appliedExternalAttributionProviders.contains(provider) != true
    let flow = try await runtime.placements.flowAwaitingAttribution(
      placementId: placementId, locale: locale, provider: provider, timeout: timeout)
    if races, provider == .appleAds { await runtime.reportFirstLaunch(flow) }
    await runtime.prefetchImages(of: flow)
    return flow
  }

  /// The placement's default-audience flow: needs no profile, the same for every user, so
  /// it is the fast, cacheable choice on a first launch.
  public nonisolated static func getFlowForDefaultAudience(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default
  ) async throws(AdaptyError) -> AdaptyFlow {
    let runtime = try await Facade.shared.runtime()
    let flow = try await runtime.placements.defaultFlow(
      placementId: placementId, locale: locale, fetchPolicy: fetchPolicy, loadTimeout: nil)
    await runtime.prefetchImages(of: flow)
    return flow
  }

  /// Loads the fallback file (`tollgate export-fallback` output) used when the server
  /// cannot answer. Works before activation. A file that is not one throws `decodingFailed`.
  public nonisolated static func setFallback(fileURL url: URL) async throws(AdaptyError) {
    try FallbackFlows.shared.load(from: url)
  }

  /// Records that the flow was shown (impressions per variation). The event is on disk
  /// when this returns and is sent in the background, retried until the server has it.
  public nonisolated static func logShowFlow(_ flow: AdaptyFlow) async throws(AdaptyError) {
    let runtime = try await Facade.shared.runtime()
    await runtime.logShow(flow)
  }

  /// The 3.x name of `getFlow`.
  @available(*, deprecated, renamed: "getFlow(placementId:locale:fetchPolicy:loadTimeout:)")
  public nonisolated static func getPaywall(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default,
    loadTimeout: TimeInterval? = nil
  ) async throws(AdaptyError) -> AdaptyFlow {
    try await getFlow(placementId: placementId, locale: locale, fetchPolicy: fetchPolicy, loadTimeout: loadTimeout)
  }

  /// The 3.x name of `getFlowForDefaultAudience`.
  @available(*, deprecated, renamed: "getFlowForDefaultAudience(placementId:locale:fetchPolicy:)")
  public nonisolated static func getPaywallForDefaultAudience(
    placementId: String, locale: String? = nil, fetchPolicy: AdaptyPlacementFetchPolicy = .default
  ) async throws(AdaptyError) -> AdaptyFlow {
    try await getFlowForDefaultAudience(placementId: placementId, locale: locale, fetchPolicy: fetchPolicy)
  }

  /// The 3.x name of `logShowFlow`.
  @available(*, deprecated, renamed: "logShowFlow(_:)")
  public nonisolated static func logShowPaywall(_ paywall: AdaptyFlow) async throws(AdaptyError) {
    try await logShowFlow(paywall)
  }
}
