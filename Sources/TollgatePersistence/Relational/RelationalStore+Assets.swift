import Foundation
import TollgateDomain
import TollgateSupport

/// `AssetRepository` on SQL: one row per SHA-256, the bytes as base64 text.
extension RelationalStore {
  public func saveAsset(_ asset: StoredAsset, at: Date) throws -> Bool {
    try with { db in
      try db.query(
        """
        INSERT INTO assets (sha256, app_id, media_type, width, height, size, body, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
        """,
        [
          .text(asset.sha256), .integer(asset.appId), .text(asset.mediaType), .integer(Int64(asset.width)),
          .integer(Int64(asset.height)), .integer(Int64(asset.body.count)), .text(asset.body.base64EncodedString()),
          .real(at.timeIntervalSince1970),
        ])
      return db.changes == 1
    }
  }

  public func asset(sha256: String) throws -> StoredAsset? {
    try with { db in
      try db.query(
        "SELECT sha256, app_id, media_type, width, height, body FROM assets WHERE sha256 = ?", [.text(sha256)]
      ).first.map { row in
        guard let body = Data(base64Encoded: try row.decode("body", as: String.self)) else {
          throw StoreError.corruptRow("asset \(sha256) is not base64")
        }
        return StoredAsset(
          sha256: try row.decode("sha256"), appId: try row.decode("app_id"), mediaType: try row.decode("media_type"),
          width: try row.decode("width"), height: try row.decode("height"), body: body)
      }
    }
  }
}
