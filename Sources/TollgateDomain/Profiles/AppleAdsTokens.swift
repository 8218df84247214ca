import Foundation
import TollgateAPI
import TollgateSupport

/// Apple Ads attribution's rules for a profile's requests: what token is sent on, and when
/// waiting for the attribution can end.
package enum AppleAdsTokens {
  /// Tokens longer than this (Unicode scalars) are refused before reaching Apple.
  package static let maxLength = 8_192

  /// The token as sent; 422 at `path` when it is empty or longer than `maxLength` characters
  /// (Unicode scalars, as the API document's `maxLength` counts them). Anything else goes to
  /// Apple, whose answer (400: invalid) is final.
  package static func valid(_ token: String, path: String) throws -> String {
    guard (1...maxLength).contains(token.unicodeScalars.count) else {
      throw DomainError.validation([.init(path: path, message: "a token is 1–\(maxLength) characters")])
    }
    return token
  }

  /// Whether waiting on this profile's Apple Ads attribution can end: it is applied, or its
  /// last token reached a final outcome.
  package static func settled(_ profile: ProfileRecord) -> Bool {
    profile.attribution.status[appleAdsSource]?.isFinal ?? false
  }
}
