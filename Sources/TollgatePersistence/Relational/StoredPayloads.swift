import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Transaction payloads decoded from their stored JSON, remembered by that text. A stored
/// payload never changes under the same text, so a remembered one is always right; the rollups
/// read a subscription's transactions several times while recording one batch (its trial, its
/// timeline, its profile's cohort, the profile's purchases), and decoding was most of that cost.
final class StoredPayloads: Sendable {
  /// The process's cache: a few thousand payloads (a batch being recorded), forgotten at once
  /// when full.
  static let shared = StoredPayloads(limit: 8_192)

  private let limit: Int
  private let decoded = Mutex<[Text: TransactionPayload]>([:])

  /// A payload's text as a key hashed over every byte: `Data` hashes only its first 80, and
  /// every payload begins the same way, so keyed by `Data` the cache was one long chain of
  /// collisions (a lookup compared against thousands of entries).
  struct Text: Hashable {
    let bytes: Data

    func hash(into hasher: inout Hasher) {
      bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

  init(limit: Int) { self.limit = limit }

  /// `payload` as the JSON text to store, remembered under it: the rollups of the unit that
  /// stores a transaction read it back at once, and decoded what had just been encoded.
  /// Right as long as decoding the text gives the payload again (`StoredPayloadsTests`).
  func stored(_ payload: TransactionPayload) -> SQLValue {
    let bytes = WireCoding.encode(payload)
    decoded.withLock { cache in
      if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
      cache[Text(bytes: bytes)] = payload
    }
    return .text(String(decoding: bytes, as: UTF8.self))
  }

  /// The payload in `row`'s `column`.
  func payload(_ row: SQLRow, column: String = "payload") throws -> TransactionPayload {
    let text = Text(bytes: try row.decode(column))
    if let known = decoded.withLock({ $0[text] }) { return known }
    let payload = try WireCoding.decoder.decode(TransactionPayload.self, from: text.bytes)
    decoded.withLock { cache in
      if cache.count >= limit { cache.removeAll(keepingCapacity: true) }
      cache[text] = payload
    }
    return payload
  }
}
