import Foundation
import TollgateSupport

/// `app_store.server_api`: who signs the App Store Server API's tokens — the issuer id and the
/// In-App Purchase key's id from App Store Connect (Users and Access → Integrations → In-App
/// Purchase). The key itself is uploaded separately and kept sealed.
public struct AppStoreServerAPISettings: Sendable, Hashable {
  /// The issuer id (a UUID).
  public var issuerId: String
  /// The key's id (10 characters).
  public var keyId: String

  public init(issuerId: String, keyId: String) {
    self.issuerId = issuerId
    self.keyId = keyId
  }
}

/// The bearer token of one App Store Server API call: an ES256 JWT with header `alg`, `kid`,
/// `typ`, and claims `iss`, `iat`, `exp` (at most 60 minutes later), `aud` and `bid`.
public enum AppStoreServerToken {
  /// The audience Apple expects.
  public static let audience = "appstoreconnect-v1"
  /// How long a token is valid: well under Apple's 60-minute cap.
  public static let lifetime: TimeInterval = 20 * 60

  /// A token for `bundleId`, signed with the app's In-App Purchase key, issued at `now`.
  package static func make(settings: AppStoreServerAPISettings, bundleId: String, key: ECKey, now: Date) throws
    -> String
  {
    let issued = Int64(now.timeIntervalSince1970.rounded(.down))
    let header: [String: Any] = ["alg": "ES256", "kid": settings.keyId, "typ": "JWT"]
    let claims: [String: Any] = [
      "iss": settings.issuerId, "iat": issued, "exp": issued + Int64(lifetime), "aud": audience, "bid": bundleId,
    ]
    let input =
      CompactJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) + "."
      + CompactJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
    return input + "." + CompactJWS.base64URLEncode(try key.signES256(Data(input.utf8)))
  }
}
