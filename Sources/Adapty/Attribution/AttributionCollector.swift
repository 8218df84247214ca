import Foundation
import TollgateAPI

/// What the collector remembers across launches.
struct AttributionState: Codable, Sendable, Hashable {
  /// When the first token was requested: later launches keep trying for 24 h after it
  /// (the token's own lifetime).
  var firstAttemptAt: Date?
  /// The profile whose token the server acknowledged (200 or 202).
  var acknowledgedProfileId: String?
  /// Why collection stopped for good, if it did.
  var stopped: String?
}

/// Gets the AdServices token after activation and hands it to the server, in the background:
/// retried with back-off inside the session, resumed on later launches within 24 h, stopped
/// on permanent errors, marked sent only once the server acknowledged it. While the server
/// resolves it, a long poll waits for the outcome and the updated profile is published.
actor AttributionCollector {
  /// Waits between failed attempts in one session, in seconds.
  static let backoff: [Double] = [0, 2, 6, 15]
  /// How long after the first attempt later launches still try.
  static let window: TimeInterval = 24 * 3_600
  /// Each long poll asks the server to hold this long.
  static let pollMilliseconds = 25_000

  private let provider: any AdaptyAttributionTokenProvider
  private let client: BackendClient
  private let profiles: ProfileManager
  private let store: LocalStore
  private let clock: any SDKClock
  private let races: AttributionRaceBoard
  private var state: AttributionState
  /// How long the profile's creation waits for the token before going without it.
  static let creationTokenWait: Double = 1

  init(
    provider: any AdaptyAttributionTokenProvider, client: BackendClient, profiles: ProfileManager,
    store: LocalStore, clock: any SDKClock, races: AttributionRaceBoard
  ) {
    self.provider = provider
    self.client = client
    self.profiles = profiles
    self.store = store
    self.clock = clock
    self.races = races
    state = store.read(AttributionState.self, from: StoredFile.attribution) ?? AttributionState()
  }

  /// The token for the profile's creation request: one attempt, at most
  /// `creationTokenWait` seconds, only when this install still has to send one. A failed
  /// attempt is not final: `run()` retries with back-off.
  func tokenForCreation() async -> String? {
    if await profiles.cachedProfile?.appliedExternalAttributionProviders.contains(.appleAds) == true { return nil }
    guard state.stopped == nil, state.acknowledgedProfileId == nil else { return nil }
    if let first = state.firstAttemptAt, clock.now().timeIntervalSince(first) > Self.window { return nil }
    if state.firstAttemptAt == nil {
      state.firstAttemptAt = clock.now()
      save()
    }
    let provider = provider
    do {
      if case .value(let token) = try await clock.race(
        seconds: Self.creationTokenWait, { try await provider.attributionToken() })
      {
        return token
      }
    } catch AdaptyAttributionTokenError.unavailable(let reason) {
      stop("no token: \(reason)")
    } catch {
      Log.info("Apple Ads attribution: no token at profile creation (\(error))")
    }
    return nil
  }

  private func save() { store.write(state, to: StoredFile.attribution) }

  /// Runs until the source is applied or settled, or collection stops; cancellable.
  func run() async {
    if await profiles.cachedProfile?.appliedExternalAttributionProviders.contains(.appleAds) == true { return }
    if let stopped = state.stopped {
      Log.verbose("Apple Ads attribution: not collecting (\(stopped))")
      return
    }
    let profileId = await profiles.profileId
    var pending = true
    if state.acknowledgedProfileId != profileId, await profiles.tokenHandedOver {
      // The creation request carried the token.
      state.acknowledgedProfileId = profileId
      save()
      Log.info("Apple Ads attribution: token handed over with the profile")
      let status = await profiles.appleAdsStatus
      if status == .invalid { stop("the server rejected the token as invalid") }
      pending = !(status?.isFinal ?? false)
    }
    if state.acknowledgedProfileId != profileId {
      if let first = state.firstAttemptAt, clock.now().timeIntervalSince(first) > Self.window {
        Log.info("Apple Ads attribution: 24 h since the first attempt; giving up")
        return
      }
      if state.firstAttemptAt == nil {
        state.firstAttemptAt = clock.now()
        save()
      }
      guard let sent = await send(profileId: profileId) else { return }
      pending = sent
    }
    if pending { await awaitOutcome(profileId: profileId) }
  }

  /// Sends the token; returns whether the server is still resolving it, or nil when
  /// collection ended (stopped, cancelled, or out of attempts for this session).
  private func send(profileId: String) async -> Bool? {
    for (attempt, wait) in Self.backoff.enumerated() {
      if wait > 0 {
        do { try await clock.sleep(seconds: wait) } catch { return nil }
      }
      let token: String
      do {
        token = try await provider.attributionToken()
      } catch AdaptyAttributionTokenError.unavailable(let reason) {
        stop("no token: \(reason)")
        return nil
      } catch {
        Log.info("Apple Ads attribution: no token yet (\(error)); attempt \(attempt + 1)")
        continue
      }
      do {
        _ = try await profiles.ensureCreated()
        let (payload, pending) = try await client.sendAppleAdsToken(profileId: profileId, token: token)
        state.acknowledgedProfileId = profileId
        save()
        await profiles.accept(payload)
        Log.info("Apple Ads attribution: token accepted (\(pending ? "pending" : "settled"))")
        if let status = payload.attributionStatus?["apple_ads"], status == .invalid {
          stop("the server rejected the token as invalid")
        }
        return pending
      } catch let error as AdaptyError {
        Log.info("Apple Ads attribution: \(error.message); attempt \(attempt + 1)")
        if error.adaptyErrorCode == .badRequest {
          stop(error.message)
          return nil
        }
      } catch let failure as BackendClient.Failure {
        Log.info("Apple Ads attribution: \(failure.error.message); attempt \(attempt + 1)")
        if failure.error.adaptyErrorCode == .badRequest || failure.error.adaptyErrorCode == .notActivated {
          stop(failure.error.message)
          return nil
        }
      } catch {
        return nil
      }
    }
    Log.info("Apple Ads attribution: not sent this session; the next launch tries again")
    return nil
  }

  /// Long-polls until the server settles the token, publishing the profile it returns.
  private func awaitOutcome(profileId: String) async {
    // A first-launch race holds a request that waits for the same outcome and brings the profile.
    if let payload = await races.outcomeOfRacesInFlight() {
      await profiles.accept(payload)
      if payload.appliedAttributionSources.contains("apple_ads") { return }
      if let status = payload.attributionStatus?["apple_ads"], status.isFinal { return }
    }
    var failures = 0
    while !Task.isCancelled {
      do {
        let payload = try await client.profileAwaitingAttribution(id: profileId, timeoutMs: Self.pollMilliseconds)
        await profiles.accept(payload)
        if payload.appliedAttributionSources.contains("apple_ads") { return }
        if let status = payload.attributionStatus?["apple_ads"], status.isFinal {
          Log.info("Apple Ads attribution: \(status.rawValue)")
          return
        }
        failures = 0
      } catch {
        let wait = Self.backoff[min(failures + 1, Self.backoff.count - 1)]
        failures += 1
        Log.info(
          "Apple Ads attribution: waiting for the outcome failed (\(error.error.message)); retrying in \(wait) s")
        do { try await clock.sleep(seconds: wait) } catch { return }
      }
    }
  }

  private func stop(_ reason: String) {
    Log.info("Apple Ads attribution: stopped: \(reason)")
    state.stopped = reason
    save()
  }
}
