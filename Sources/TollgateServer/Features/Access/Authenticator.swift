import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Maps the `Authorization` header to an app: SDK routes take `Api-Key <public key>`, admin
/// routes `Bearer <secret key>`. The edge's part is reading the header; whether the key opens
/// the route is `KeyVerifier`'s answer.
struct Authenticator: Sendable {
  /// Who a request acts as.
  typealias Caller = KeyVerifier.Caller

  let keys: KeyVerifier

  /// The app the request may act for, or 401/403.
  func appId(for request: Request, needs kind: KeyKind) throws -> Int64 {
    try caller(for: request, needs: kind).appId
  }

  /// The app and key the request acts as, or 401/403.
  func caller(for request: Request, needs kind: KeyKind) throws -> Caller {
    guard let header = request.header("authorization"), !header.isEmpty else {
      throw DomainError(
        .missingCredentials,
        kind == .publicKey
          ? "Send the app's public key as 'Authorization: Api-Key <key>'."
          : "Send the app's secret key as 'Authorization: Bearer <key>'.")
    }
    // Plain byte-level parsing: this runs on every request (Foundation's trimming is costly).
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, ["api-key", "bearer"].contains(parts[0].lowercased()) else {
      throw DomainError(.invalidCredentials, "Authorization must be 'Api-Key <key>' or 'Bearer <key>'.")
    }
    var text = parts[1]
    while let last = text.utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { text = text.dropLast() }
    return try keys.verify(String(text), needs: kind)
  }

  /// Forgets cached keys at once (a key was revoked through this instance).
  func forgetAll() { keys.forgetAll() }
}
