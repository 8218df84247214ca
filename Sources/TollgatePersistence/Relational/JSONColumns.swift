import Foundation
import TollgateAPI

/// Encodes values for JSON columns. With `remembering`, each distinct value is encoded once:
/// the profiles of an import mostly share their install meta, attribution and cohort
/// contribution, and encoding was a fifth of importing them.
final class JSONColumns {
  private let remembering: Bool
  private var encoded: [AnyHashable: SQLValue] = [:]

  init(remembering: Bool = false) { self.remembering = remembering }

  func encode<T: Encodable & Hashable>(_ value: T) -> SQLValue {
    guard remembering else { return .text(String(decoding: WireCoding.encode(value), as: UTF8.self)) }
    if let known = encoded[AnyHashable(value)] { return known }
    let text = SQLValue.text(String(decoding: WireCoding.encode(value), as: UTF8.self))
    if encoded.count >= 4_096 { encoded.removeAll(keepingCapacity: true) }
    encoded[AnyHashable(value)] = text
    return text
  }
}
