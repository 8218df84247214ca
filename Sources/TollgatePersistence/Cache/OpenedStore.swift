import Foundation
import TollgateDomain
import TollgateSupport

/// An opened database and, when one was asked for, the profile cache in front of it: what the
/// server's composition root hands out as repositories.
public struct OpenedStore: Sendable {
  public let database: any Database
  public let cache: CachedStore?

  /// `database` alone, or with `cache` in front of it (made over the same database).
  public init(_ database: any Database, cache: CachedStore? = nil) {
    self.database = database
    self.cache = cache
  }

  /// Profiles: through the cache when there is one.
  public var profiles: any ProfileRepository { cache ?? database }
  /// A/B assignments: through the cache when there is one (first-time writes batched).
  public var assignments: any AssignmentRepository { cache ?? database }
  /// What rules read of a profile: the cache's compact view, else decoded from the record.
  package var targetingViews: any TargetingViewRepository { cache ?? RecordTargetingViews(profiles: database) }

  /// Closes the cache (its pending writes first) and the database.
  public func close() {
    if let cache { cache.close() } else { database.close() }
  }
}
