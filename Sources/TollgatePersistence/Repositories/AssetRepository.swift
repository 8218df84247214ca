import Foundation
import TollgateDomain
import TollgateSupport

/// Images paywall documents reference, content-addressed by SHA-256.
public protocol AssetRepository: Sendable {
  /// Stores an image unless one with its hash is stored; true when it was new.
  func saveAsset(_ asset: StoredAsset, at: Date) throws -> Bool

  /// The image with this hash.
  func asset(sha256: String) throws -> StoredAsset?
}

/// An image as stored.
public struct StoredAsset: Sendable, Hashable {
  public var sha256: String
  /// The app that uploaded it first.
  public var appId: Int64
  public var mediaType: String
  public var width: Int
  public var height: Int
  public var body: Data

  /// Every stored field.
  package init(sha256: String, appId: Int64, mediaType: String, width: Int, height: Int, body: Data) {
    self.sha256 = sha256
    self.appId = appId
    self.mediaType = mediaType
    self.width = width
    self.height = height
    self.body = body
  }
}
