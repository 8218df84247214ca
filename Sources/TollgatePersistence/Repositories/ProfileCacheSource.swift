import Foundation
import TollgateDomain
import TollgateSupport

/// What the profile cache needs from the database beyond the repositories: a profile read
/// with all its assignments, pages of them for warming, batched assignment writes, and where
/// other instances announce their changes. The database implements it; the cache uses it, so
/// neither names the other's types.
public protocol ProfileCacheSource: Database {
  /// The profile and every stored assignment of it.
  func profileWithAssignments(appId: Int64, id: String) throws -> (ProfileRecord, [AssignmentSlot: String])?

  /// Up to `limit` profiles after `after` in (app, id) order, with their assignments.
  func profilePage(after: (appId: Int64, id: String), limit: Int) throws -> [CachedProfile]

  /// Stores a batch of first-time assignments in one transaction; returns the slots where
  /// another instance had stored a different variation first (that one wins).
  func storeAssignments(_ batch: [PendingAssignment]) throws -> [(AssignmentKey, String)]

  /// The PostgreSQL connection string to `LISTEN` on for other instances' changes (nil: one
  /// process owns the database, so every change passes through this one).
  var announcementConninfo: String? { get }
}

/// One experiment slot of a profile: where an A/B assignment is kept.
public struct AssignmentSlot: Hashable, Sendable {
  public let placementId: String
  public let audienceId: String

  public init(placementId: String, audienceId: String) {
    self.placementId = placementId
    self.audienceId = audienceId
  }
}

/// A profile with its stored assignments, as the cache reads it in bulk.
public typealias CachedProfile = (appId: Int64, profile: ProfileRecord, assignments: [AssignmentSlot: String])

/// A first-time A/B assignment waiting to be written.
public struct PendingAssignment: Sendable, Hashable {
  public var key: AssignmentKey
  public var variationId: String
  public var at: Date

  public init(key: AssignmentKey, variationId: String, at: Date) {
    self.key = key
    self.variationId = variationId
    self.at = at
  }
}

/// How instances announce changes to each other on PostgreSQL (`NOTIFY`, inside the writing
/// transaction): one channel; a payload `APP:PROFILE` names a changed profile, `config:APP` an
/// app whose configuration or saved lists changed.
public enum ProfileAnnouncements {
  public static let channel = "tollgate_profiles"
  public static let configPrefix = "config:"
}
