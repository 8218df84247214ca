import Foundation
import Synchronization

/// Maps the `Authorization` header to an app. SDK routes take `Api-Key <public key>`,
/// admin routes `Bearer <secret key>`. Known keys are cached in memory (bounded); keys are
/// never revoked today, so the cache never goes stale.
final class Authenticator: Sendable {
  private let store: any Store
  private let known = Mutex<[String: KeyRecord]>([:])
  static let maxCachedKeys = 10_000

  init(store: any Store) { self.store = store }

  /// The app id the request may act for, or 401/403.
  func appId(for request: Request, needs kind: KeyKind) throws -> Int64 {
    guard let header = request.header("authorization"), !header.isEmpty else {
      throw HTTPError(
        401, "missing_credentials",
        kind == .publicKey
          ? "Send the app's public key as 'Authorization: Api-Key <key>'."
          : "Send the app's secret key as 'Authorization: Bearer <key>'.")
    }
    // Plain byte-level parsing: this runs on every request (Foundation's trimming is costly).
    let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, ["api-key", "bearer"].contains(parts[0].lowercased()) else {
      throw HTTPError(401, "invalid_credentials", "Authorization must be 'Api-Key <key>' or 'Bearer <key>'.")
    }
    var text = parts[1]
    while let last = text.utf8.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { text = text.dropLast() }
    let key = String(text)
    let record: KeyRecord
    // Known keys are looked up by their text, so the hot path does no hashing; the store
    // only ever sees (and keeps) the hash.
    if let cached = known.withLock({ $0[key] }) {
      record = cached
    } else if let stored = try store.key(hash: KeyIssuer.hash(key)) {
      known.withLock { known in
        if known.count < Self.maxCachedKeys { known[key] = stored }
      }
      record = stored
    } else {
      throw HTTPError(401, "invalid_credentials", "This key is not known to this server.")
    }
    guard record.kind == kind else {
      throw kind == .secretKey
        ? HTTPError(403, "forbidden", "Admin routes need the app's secret key; this is its public key.")
        : HTTPError(403, "forbidden", "SDK routes take the app's public key; do not ship the secret key.")
    }
    return record.appId
  }
}
