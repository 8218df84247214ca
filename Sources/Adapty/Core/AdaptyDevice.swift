import Foundation

/// One simulated install, independent of the process-wide `Adapty` facade, so a single
/// process can play several devices (the `tollgate demo` timeline). Not for apps.
@_spi(Demo)
public final class AdaptyDevice: Sendable {
  private let runtime: AdaptyRuntime
  private let fallback: FallbackFlows
  private let delegates: DelegateHolder

  private init(runtime: AdaptyRuntime, fallback: FallbackFlows, delegates: DelegateHolder) {
    self.runtime = runtime
    self.fallback = fallback
    self.delegates = delegates
  }

  /// Launches the app on this device: `delegate` gets profiles as an app's would, and the
  /// fallback file (if any) is loaded first.
  public static func launch(
    _ configuration: AdaptyConfiguration, fallbackFile: URL? = nil, delegate: (any AdaptyDelegate)? = nil
  ) async throws(AdaptyError) -> AdaptyDevice {
    let fallback = FallbackFlows()
    if let fallbackFile { try fallback.load(from: fallbackFile) }
    let delegates = DelegateHolder()
    delegates.delegate = delegate
    let runtime = await AdaptyRuntime.launch(configuration, fallback: fallback, delegates: delegates)
    return AdaptyDevice(runtime: runtime, fallback: fallback, delegates: delegates)
  }

  /// `Adapty.getFlow(placementId:locale:awaitingAttribution:timeout:)` on this device.
  public func getFlow(
    placementId: String, awaitingAttribution provider: AdaptyExternalAttributionProvider, timeout: TimeInterval
  ) async throws(AdaptyError) -> AdaptyFlow {
    try await runtime.placements.flowAwaitingAttribution(
      placementId: placementId, locale: nil, provider: provider, timeout: timeout)
  }

  /// `Adapty.getFlow(placementId:)` on this device.
  public func getFlow(placementId: String) async throws(AdaptyError) -> AdaptyFlow {
    try await runtime.placements.flow(placementId: placementId, locale: nil, fetchPolicy: .default, loadTimeout: nil)
  }

  /// `Adapty.getFlowForDefaultAudience(placementId:)` on this device.
  public func getFlowForDefaultAudience(placementId: String) async throws(AdaptyError) -> AdaptyFlow {
    try await runtime.placements.defaultFlow(
      placementId: placementId, locale: nil, fetchPolicy: .default, loadTimeout: nil)
  }

  /// `Adapty.profileUpdates` on this device.
  public var profileUpdates: AsyncStream<AdaptyProfile> {
    let (stream, continuation) = AsyncStream<AdaptyProfile>.makeStream()
    let broadcaster = runtime.broadcaster
    Task { await broadcaster.subscribe(continuation) }
    return stream
  }

  /// The profile this device has now (cached or fresh).
  public var profile: AdaptyProfile? {
    get async { await runtime.profiles.cachedProfile }
  }

  /// Quits the app: background work stops, files stay for the next launch.
  public func quit() async { await runtime.shutdown() }
}
