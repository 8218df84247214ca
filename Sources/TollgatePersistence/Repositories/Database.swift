import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// An opened SQL database (`SQLiteStore`, `PostgresStore`): every repository, written once in
/// `RelationalStore` for both engines (one conformance suite runs against both). Only the
/// composition root, the command line and tests hold it whole; services are given the narrow
/// repositories they use. Each call is atomic; it is safe to call from many threads at once.
public protocol Database:
  AppRepository, ConfigRepository, ProfileRepository, AssignmentRepository, AttributionJobRepository,
  EventRepository, PurchaseRepository, AnalyticsRepository, WebhookOutboxRepository, AppleAdsSpendRepository,
  AssetRepository, SavedListRepository, AppStoreServerRepository, ProfileImportRepository, PeopleRepository,
  SingleSignOnRepository,
  AnyObject
{
  /// Told, after each commit, which profiles a write changed (the profile cache forgets them).
  var profileChanges: ProfileChangeObservers { get }

  /// Finishes pending work and releases the database.
  func close()
}

/// Who hears about changed profiles: the profile cache registers here; the database calls
/// `announce` once a write that changed profiles has committed.
public final class ProfileChangeObservers: Sendable {
  private let observers = Mutex<[@Sendable (Int64, [String]) -> Void]>([])

  public init() {}

  /// Calls `observer` with the app and the profile ids after every committed change.
  public func observe(_ observer: @escaping @Sendable (Int64, [String]) -> Void) {
    observers.withLock { $0.append(observer) }
  }

  /// Tells every observer that these profiles changed.
  public func announce(appId: Int64, _ ids: [String]) {
    guard !ids.isEmpty else { return }
    for observer in observers.withLock({ $0 }) { observer(appId, ids) }
  }
}
