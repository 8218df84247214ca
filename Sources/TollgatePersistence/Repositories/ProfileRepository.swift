import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Profiles: created once per id, changed in one transaction with a new version.
public protocol ProfileRepository: Sendable {
  /// Inserts a profile unless one with its id exists; returns the stored one and
  /// whether it was created by this call.
  func insertProfile(appId: Int64, _ profile: ProfileRecord) throws -> (ProfileRecord, created: Bool)

  /// Inserts many profiles in one transaction (imports, benchmarks); existing ids are kept.
  /// Returns how many were new.
  func importProfiles(appId: Int64, _ profiles: [ProfileRecord]) throws -> Int

  /// The profile with this id.
  func profile(appId: Int64, id: String) throws -> ProfileRecord?

  /// The oldest profile carrying this customer user id.
  func profile(appId: Int64, customerUserId: String) throws -> ProfileRecord?

  /// Changes a profile in one transaction; `version` grows by one and `updatedAt` is set
  /// when `change` returns true. Returns nil for an unknown profile.
  func updateProfile(
    appId: Int64, id: String, at: Date, _ change: (inout ProfileRecord) throws -> Bool
  ) throws -> ProfileRecord?

  /// The ids of the profiles carrying this customer user id, oldest first.
  func profileIds(appId: Int64, customerUserId: String, limit: Int) throws -> [String]
}
