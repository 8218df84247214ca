import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Everything the server keeps: the composition of one repository per resource. Each call is
/// atomic; implementations are safe to call from many threads at once. `RelationalStore`
/// implements every repository once for SQLite and PostgreSQL (one conformance suite runs
/// against both); `CachedStore` wraps one with the in-memory profile cache.
public protocol Store:
  AppRepository, ConfigRepository, ProfileRepository, AssignmentRepository, AttributionJobRepository,
  EventRepository, PurchaseRepository, AnalyticsRepository, WebhookOutboxRepository, AppleAdsSpendRepository,
  AssetRepository, SavedListRepository
{
  /// The in-memory profile cache, when there is one (its figures go to `/metrics`).
  var profileCache: ProfileCache? { get }

  /// First-time A/B assignments waiting for their batch write, written, and dropped (nil
  /// when they are written on the request path).
  var assignmentWrites: (pending: Int, written: Int, dropped: Int)? { get }

  /// Finishes pending work and releases the database.
  func close()
}

extension Store {
  public var profileCache: ProfileCache? { nil }
  public var assignmentWrites: (pending: Int, written: Int, dropped: Int)? { nil }
}
