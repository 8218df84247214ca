import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// `wait_for=apple_ads&timeout_ms=N` on profile and placement reads.
struct AttributionWait {
  let seconds: Double

  /// `timeout_ms` when `wait_for` comes without it.
  static let defaultMilliseconds = 5_000
  /// The most `timeout_ms` may ask for.
  static let maximumMilliseconds = 30_000

  /// nil when the request does not ask to wait; 400 for a malformed request to wait. The
  /// server may hold requests for less than asked (`cap`: `tollgate serve --max-wait-ms`).
  init?(_ request: Request, cap: Double = ProfileWaits.maximumSeconds) throws {
    // timeout_ms alone asks for nothing, but must still be a timeout.
    let timeout = try request.query["timeout_ms"].map { text -> Int in
      guard let value = Int(text), (0...Self.maximumMilliseconds).contains(value) else {
        throw DomainError(
          .badParameter, "timeout_ms is a whole number of milliseconds from 0 to \(Self.maximumMilliseconds).")
      }
      return value
    }
    guard let source = request.query["wait_for"] else { return nil }
    guard source == appleAdsSource else {
      throw DomainError(.badParameter, "wait_for supports apple_ads only.")
    }
    let milliseconds = timeout ?? Self.defaultMilliseconds
    seconds = min(Double(milliseconds) / 1000, cap, ProfileWaits.maximumSeconds)
  }
}
