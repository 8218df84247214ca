import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `POST /v1/admin/assets` (the image's bytes as the body, up to `ImageAsset.maximumBytes`) and
/// `GET /v1/assets/{sha256}` (no key: paywall images are public to the app, addressed by a hash
/// nobody guesses; immutable, so caches keep them for a year).
struct AssetsController: Sendable {
  /// The upload route, whose body limit is raised to `ImageAsset.maximumBytes`.
  static let uploadPath = "/v1/admin/assets"

  let auth: Authenticator
  let assets: AssetService

  func register(on router: inout Router) {
    router.add("POST", Self.uploadPath, needs: .configWrite, auth) { request, caller in
      let (payload, created) = try assets.upload(appId: caller.appId, data: request.body, by: caller.actor)
      return .json(payload, status: created ? 201 : 200)
    }
    router.add("GET", "/v1/assets/{sha256}") { request in
      let asset = try assets.asset(sha256: request.parameter("sha256"))
      return .conditional(
        request, etag: "\"\(asset.sha256)\"", headers: [("Cache-Control", "public, max-age=31536000, immutable")]
      ) {
        Response(status: 200, headers: [("Content-Type", asset.mediaType)], body: asset.body)
      }
    }
  }
}
