import Foundation
import TollgateDomain

/// Single sign-on: the provider's settings, sign-ins in flight, people's identities at the
/// provider.
public protocol SingleSignOnRepository: Sendable {
  /// The settings, or nil when single sign-on is not set up.
  func singleSignOn() throws -> SingleSignOnRecord?

  /// Replaces the settings (nil: single sign-on off; identities stay, for when it comes back).
  func setSingleSignOn(_ record: SingleSignOnRecord?) throws

  /// Stores a sign-in that went to the provider.
  func addSignOnRequest(_ request: SignOnRequestRecord) throws

  /// Removes and returns the sign-in with this state hash: each is finished at most once.
  func takeSignOnRequest(stateHash: String) throws -> SignOnRequestRecord?

  /// The person tied to `subject` at `issuer`.
  func person(issuer: String, subject: String) throws -> PersonRecord?

  /// Invitations to join (not password resets) for `email` not accepted and not expired at `now`.
  func openInvitations(email: String, now: Date) throws -> [InvitationRecord]

  /// Writes what a sign-in decided, in one transaction: creates the person when `personId` is
  /// nil (no password), ties the identity to them, accepts the invitations (each only if still
  /// open), gives the default membership unless they have a role there. Returns the person.
  func recordSignOn(_ write: SignOnWrite) throws -> PersonRecord

  /// Deletes sign-ins begun before `before` (never finished).
  @discardableResult
  func forgetSignOnRequests(before: Date) throws -> Int
}
