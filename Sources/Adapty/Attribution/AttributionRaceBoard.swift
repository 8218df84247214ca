import Foundation
import TollgateAPI

/// Tells the attribution collector about first-launch races in flight. A race's segmented
/// request waits on the server for the attribution and comes back with the profile, so while
/// one runs the collector waits for it instead of holding a long poll of its own.
actor AttributionRaceBoard {
  private var inFlight = 0
  private var latest: ProfilePayload?
  private var waiters: [CheckedContinuation<ProfilePayload?, Never>] = []

  /// A race sent its segmented request.
  func begin() { inFlight += 1 }

  /// A race's segmented request ended, with the profile its answer carried (nil: failed).
  func end(with profile: ProfilePayload?) {
    inFlight = max(0, inFlight - 1)
    if let profile { latest = profile }
    guard inFlight == 0 else { return }
    let outcome = latest
    latest = nil
    for waiter in waiters { waiter.resume(returning: outcome) }
    waiters = []
  }

  /// Waits for the races in flight to end and returns the last profile one carried; nil at
  /// once when none runs.
  func outcomeOfRacesInFlight() async -> ProfilePayload? {
    guard inFlight > 0 else { return nil }
    return await withCheckedContinuation { waiters.append($0) }
  }
}
