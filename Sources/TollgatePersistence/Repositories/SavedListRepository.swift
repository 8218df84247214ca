import Foundation
import TollgateDomain
import TollgateSupport

/// Saved lists (`$inGroup`): each app's lists by id, their values stored as one text.
public protocol SavedListRepository: Sendable {
  /// Stores the list (replacing one with its id), counts a list change for the app and
  /// announces it like a configuration change, in one transaction; true when it was new.
  func putSavedList(appId: Int64, id: String, values: SavedListValues, at: Date) throws -> Bool

  /// A list's size, checksum and time (not its values).
  func savedListInfo(appId: Int64, id: String) throws -> SavedListInfo?

  /// Every list of the app, by id.
  func savedListInfos(appId: Int64) throws -> [SavedListInfo]

  /// The values of the lists with these ids (those that exist).
  func savedListValues(appId: Int64, ids: [String]) throws -> [String: (info: SavedListInfo, values: SavedListValues)]

  /// Deletes a list (counted and announced like a change); false when there was none.
  func deleteSavedList(appId: Int64, id: String) throws -> Bool

  /// Every app's count of list changes (configuration caches compare against it).
  func listRevisions() throws -> [Int64: Int64]
}

/// What is known of a saved list without reading its values.
public struct SavedListInfo: Sendable, Hashable {
  public var id: String
  /// Distinct values.
  public var size: Int
  /// SHA-256 (hex) of the values, sorted, one a line.
  public var checksum: String
  public var updatedAt: Date

  /// What a put stored (the service answers it without reading it back).
  package init(id: String, size: Int, checksum: String, updatedAt: Date) {
    self.id = id
    self.size = size
    self.checksum = checksum
    self.updatedAt = updatedAt
  }
}
