import Adapty
import Foundation

/// The 4.x sample of the documentation page "first-launch paywall targeted by Apple Ads", as written
/// there. Two changes only: it sits in a namespace (the 3.x sample below defines the same
/// type names), and `@Published`/`$profile.values` — Combine, absent on Linux — is replaced
/// by `Adapty.profileUpdates`, which likewise yields the current profile first.
enum Docs4x {
  /// Demonstrates how to fetch a paywall that depends on attribution being applied,
  /// falling back to the default-audience paywall if attribution doesn't arrive in time.
  ///
  /// Stateless and self-contained: every call kicks off its own default-audience
  /// prefetch and races it against attribution + segmented fetch.
  enum FlowLoader {
    static func getFlowOrDefault(
      placementId: String,
      timeout: TimeInterval
    ) async throws -> AdaptyFlow {
      struct TimedOut: Error {}

      // Kick off the default-audience request immediately so it has the full
      // `timeout` window to load. We'll either cancel it on success or await
      // its result on timeout — never a duplicate network call.
      let defaultFlowTask = Task {
        try await Adapty.getFlowForDefaultAudience(placementId: placementId)
      }

      do {
        // Race two child tasks: whichever finishes first wins.
        let result = try await withThrowingTaskGroup(of: AdaptyFlow.self) { group in
          // 1. Wait for attribution, then ask Adapty for the segmented paywall.
          group.addTask {
            await waitForAttribution()
            return try await Adapty.getFlow(placementId: placementId)
          }
          // 2. Time-bomb: throws `TimedOut` after `timeout` seconds.
          group.addTask {
            try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            throw TimedOut()
          }
          guard let value = try await group.next() else { throw CancellationError() }
          group.cancelAll()  // stop the loser (sleeper or the attribution wait).
          return value
        }
        // Segmented paywall won — we no longer need the default-audience prefetch.
        defaultFlowTask.cancel()
        return result
      } catch is TimedOut {
        // Attribution didn't apply in time — return the prefetched default
        // (instant if already done, otherwise we await the in-flight request).
        return try await defaultFlowTask.value
      }
    }

    /// Suspends until a profile with the desired attribution source is observed.
    /// `Adapty.profileUpdates` emits the current profile immediately on subscription,
    /// so this returns on the first iteration if attribution is already applied.
    @MainActor
    private static func waitForAttribution() async {
      for await profile in Adapty.profileUpdates {
        if profile.appliedExternalAttributionProviders.contains(.appleAds) == true { return }
      }
    }
  }

  @MainActor
  final class ProfileObserver: AdaptyDelegate {
    static let shared = ProfileObserver()

    private(set) var profile: AdaptyProfile?

    nonisolated func didLoadLatestProfile(_ profile: AdaptyProfile) {
      Task { @MainActor [weak self] in
        self?.profile = profile
      }
    }
  }
}
