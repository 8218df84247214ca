import Foundation

/// How `getFlow` uses the disk cache.
public enum AdaptyPlacementFetchPolicy: Sendable, Hashable {
  /// Always ask the server; use the cache (then the fallback file) only when it cannot
  /// answer in time. The default.
  case reloadRevalidatingCacheData
  /// Answer from the cache when it has the placement; else ask the server.
  case returnCacheDataElseLoad
  /// Answer from the cache when its entry is younger than `maxAge` seconds; else ask the server.
  case returnCacheDataIfNotExpiredElseLoad(maxAge: TimeInterval)

  /// `.reloadRevalidatingCacheData`.
  public static let `default` = AdaptyPlacementFetchPolicy.reloadRevalidatingCacheData
}
