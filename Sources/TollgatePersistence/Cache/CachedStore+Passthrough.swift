import Foundation
import TollgateDomain
import TollgateSupport

/// Spend, credentials and the import job never touch cached profiles: straight to the database.
extension CachedStore {
  public func saveAdsCredentials(appId: Int64, sealedKey: String, keyFingerprint: String, at: Date) throws {
    try database.saveAdsCredentials(appId: appId, sealedKey: sealedKey, keyFingerprint: keyFingerprint, at: at)
  }
  public func deleteAdsCredentials(appId: Int64) throws -> Bool { try database.deleteAdsCredentials(appId: appId) }
  public func adsCredentials(appId: Int64) throws -> StoredAdsCredentials? {
    try database.adsCredentials(appId: appId)
  }
  public func markAdsCredentialsUsed(appId: Int64, at: Date) throws {
    try database.markAdsCredentialsUsed(appId: appId, at: at)
  }
  public func claimSpendImport(now: Date, leaseUntil: Date, owner: String) throws -> SpendImportJob? {
    try database.claimSpendImport(now: now, leaseUntil: leaseUntil, owner: owner)
  }
  public func beginSpendImportRun(appId: Int64, owner: String, days: ClosedRange<Int64>, at: Date) throws -> Bool {
    try database.beginSpendImportRun(appId: appId, owner: owner, days: days, at: at)
  }
  public func renewSpendImportLease(appId: Int64, owner: String, until: Date, at: Date) throws -> Bool {
    try database.renewSpendImportLease(appId: appId, owner: owner, until: until, at: at)
  }
  public func storeSpendWindow(
    appId: Int64, owner: String, days: ClosedRange<Int64>, figures: [SpendFigure], names: [AdsEntityName],
    skipped: [String], leaseUntil: Date, at: Date
  ) throws -> Bool {
    try database.storeSpendWindow(
      appId: appId, owner: owner, days: days, figures: figures, names: names, skipped: skipped,
      leaseUntil: leaseUntil, at: at)
  }
  public func nextSpendImportDue() throws -> Date? { try database.nextSpendImportDue() }
  public func finishSpendImport(
    appId: Int64, owner: String, _ outcome: SpendImportOutcome, webhooks: [WebhookConfig], at: Date
  ) throws {
    try database.finishSpendImport(appId: appId, owner: owner, outcome, webhooks: webhooks, at: at)
  }
  public func requestSpendImport(appId: Int64, at: Date) throws -> Bool {
    try database.requestSpendImport(appId: appId, at: at)
  }
  public func spendImportJob(appId: Int64) throws -> SpendImportJob? { try database.spendImportJob(appId: appId) }
  public func importSpendFile(appId: Int64, figures: [SpendFigure], names: [AdsEntityName], at: Date) throws {
    try database.importSpendFile(appId: appId, figures: figures, names: names, at: at)
  }
  public func spendFigures(appId: Int64, days: ClosedRange<Int64>) throws -> [SpendFigure] {
    try database.spendFigures(appId: appId, days: days)
  }
  public func adsEntityNames(appId: Int64) throws -> [AdsEntityName] { try database.adsEntityNames(appId: appId) }
}

/// Assets never touch cached profiles either.
extension CachedStore {
  public func saveAsset(_ asset: StoredAsset, at: Date) throws -> Bool { try database.saveAsset(asset, at: at) }
  public func asset(sha256: String) throws -> StoredAsset? { try database.asset(sha256: sha256) }

  // Saved lists are read by configuration caches, not through profiles.
  public func putSavedList(appId: Int64, id: String, values: SavedListValues, at: Date) throws -> Bool {
    try database.putSavedList(appId: appId, id: id, values: values, at: at)
  }
  public func savedListInfo(appId: Int64, id: String) throws -> SavedListInfo? {
    try database.savedListInfo(appId: appId, id: id)
  }
  public func savedListInfos(appId: Int64) throws -> [SavedListInfo] { try database.savedListInfos(appId: appId) }
  public func savedListValues(appId: Int64, ids: [String]) throws -> [String: (
    info: SavedListInfo, values: SavedListValues
  )] { try database.savedListValues(appId: appId, ids: ids) }
  public func deleteSavedList(appId: Int64, id: String) throws -> Bool {
    try database.deleteSavedList(appId: appId, id: id)
  }
  public func listRevisions() throws -> [Int64: Int64] { try database.listRevisions() }
}

/// Expiring raw flow views never touches cached profiles.
extension CachedStore {
  public func expireEvents(before cutoff: Date, limit: Int) throws -> Int {
    try database.expireEvents(before: cutoff, limit: limit)
  }
  public func eventsExpiredBefore(appId: Int64) throws -> Date? { try database.eventsExpiredBefore(appId: appId) }
  public func dropExpiredEventMonths(before cutoff: Date) throws -> Int {
    try database.dropExpiredEventMonths(before: cutoff)
  }
}
