import Foundation
import TollgateSupport

/// The client secret of Apple Ads' OAuth client-credentials flow: a JWT signed ES256 with the
/// private key whose public half the operator uploaded in Apple Ads. Header `alg`, `kid`;
/// claims `sub` (client id), `iss` (team id), `aud`, `iat`, `exp` (at most 180 days later).
public struct ClientSecret: Sendable, Hashable {
  /// The audience Apple's token endpoint expects.
  public static let audience = "https://appleid.apple.com"
  /// The longest validity Apple accepts.
  public static let maximumLifetime: TimeInterval = 180 * 86_400

  /// The compact JWT.
  public let token: String
  public let issuedAt: Date
  public let expiresAt: Date

  /// Signs a new secret for `settings`, valid from `now` for `lifetime` (capped at 180 days).
  package static func make(
    settings: AppleAdsAPISettings, key: ECKey, now: Date, lifetime: TimeInterval = maximumLifetime
  ) throws -> ClientSecret {
    let issued = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
    let expires = issued.addingTimeInterval(min(lifetime, maximumLifetime))
    let header: [String: Any] = ["alg": "ES256", "kid": settings.keyId]
    let claims: [String: Any] = [
      "sub": settings.clientId, "iss": settings.teamId, "aud": audience,
      "iat": Int64(issued.timeIntervalSince1970), "exp": Int64(expires.timeIntervalSince1970),
    ]
    let input =
      CompactJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) + "."
      + CompactJWS.base64URLEncode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
    let signature = try key.signES256(Data(input.utf8))
    return ClientSecret(
      token: input + "." + CompactJWS.base64URLEncode(signature), issuedAt: issued, expiresAt: expires)
  }

  /// Still usable at `now` with a safety margin (a secret is renewed a day before it expires).
  public func isFresh(at now: Date, margin: TimeInterval = 86_400) -> Bool {
    expiresAt.timeIntervalSince(now) > margin
  }
}
