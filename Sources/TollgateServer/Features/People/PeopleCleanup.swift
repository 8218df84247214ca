import Foundation
import TollgateDomain
import TollgatePersistence
import TollgateSupport

/// Forgets, on a background pass, what sign-in leaves behind and no longer matters: sessions past
/// their absolute expiry or ended a day ago, failure counts a day old and not locked (an attacker
/// trying many e-mails makes one row each), invitations expired 30 days ago, and single sign-ons
/// begun over ten minutes ago and never finished. Nothing a person
/// can still use is deleted.
public final class PeopleCleanup: Sendable {
  /// How long an ended session, a failure count or an expired invitation is kept.
  static let keepEnded: TimeInterval = 86_400
  static let keepInvitations: TimeInterval = 30 * 86_400

  let people: any PeopleRepository & SingleSignOnRepository
  let policy: SessionPolicy
  let time: any TimeSource
  let logger: Logger
  private let loop = BackgroundPasses()

  init(
    people: any PeopleRepository & SingleSignOnRepository, policy: SessionPolicy, time: any TimeSource, logger: Logger
  ) {
    self.people = people
    self.policy = policy
    self.time = time
    self.logger = logger
    loop.bind { [self] in
      pass()
      return 0
    }
  }

  /// One pass; returns how many rows went.
  @discardableResult
  func pass() -> Int {
    let now = time.now()
    do {
      let deleted =
        try people.forgetStale(
          sessionsCreatedBefore: now.addingTimeInterval(-policy.absolute),
          sessionsEndedBefore: now.addingTimeInterval(-Self.keepEnded),
          failuresBefore: now.addingTimeInterval(-Self.keepEnded),
          invitationsBefore: now.addingTimeInterval(-Self.keepInvitations), now: now)
        + people.forgetSignOnRequests(before: now.addingTimeInterval(-SingleSignOnService.requestLifetime))
      if deleted > 0 { logger.debug("people clean-up: \(deleted) stale sessions, failure counts or invitations") }
      return deleted
    } catch {
      logger.warn("people clean-up: \(error)")
      return 0
    }
  }

  /// Passes every `interval` seconds (and at once after `kick()`).
  public func start(interval: TimeInterval = 3_600) { loop.start(interval: interval) }

  /// Runs a pass now.
  public func kick() { loop.kick() }

  /// Stops the timer and waits for a running pass.
  public func stop() { loop.stop() }
}
