import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Images for paywall documents: checked by their bytes, stored once by SHA-256, audited.
final class AssetService: Sendable {
  let apps: any AppRepository
  let assetFiles: any AssetRepository
  let time: any TimeSource

  init(apps: any AppRepository, assetFiles: any AssetRepository, time: any TimeSource) {
    self.apps = apps
    self.assetFiles = assetFiles
    self.time = time
  }

  /// Stores `data` (PNG, JPEG or WebP within the limits); returns its description and whether it was new.
  func upload(appId: Int64, data: Data, by actor: String) throws -> (AssetPayload, created: Bool) {
    guard !data.isEmpty else {
      throw DomainError(.invalidAsset, "The request body is the image's bytes; it was empty.")
    }
    let image = try ImageAsset.inspect(data)
    let hash = Digest.hex(Digest.sha256(data))
    let created = try assetFiles.saveAsset(
      StoredAsset(
        sha256: hash, appId: appId, mediaType: image.mediaType, width: image.width, height: image.height, body: data),
      at: time.now())
    if created {
      try apps.audit(
        appId: appId,
        AuditRecord(
          at: time.now(), actor: actor, action: "asset.uploaded",
          detail: AuditDetail.json(["sha256": .string(hash), "size": .int(Int64(data.count))])))
    }
    return (
      AssetPayload(
        sha256: hash, mediaType: image.mediaType, width: image.width, height: image.height, size: data.count,
        url: "/v1/assets/\(hash)"), created
    )
  }

  /// The image with this hash (404 `asset_not_found`, a malformed hash too).
  func asset(sha256: String) throws -> StoredAsset {
    guard sha256.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil,
      let asset = try assetFiles.asset(sha256: sha256)
    else { throw DomainError.notFound(.assetNotFound, "No asset has the SHA-256 \(sha256.prefix(64)).") }
    return asset
  }
}

/// An uploaded image, as `POST /v1/admin/assets` describes it.
struct AssetPayload: Codable, Sendable, Hashable {
  var sha256: String
  var mediaType: String
  var width: Int
  var height: Int
  var size: Int
  /// Where apps load it from.
  var url: String

  enum CodingKeys: String, CodingKey {
    case sha256, width, height, size, url
    case mediaType = "media_type"
  }
}
