import Foundation
import TollgateAPI

/// Encodes values for JSON columns. With `remembering`, each distinct value is encoded once:
/// the profiles of an import mostly share their install meta, attribution and cohort
/// contribution, and encoding was a fifth of importing them. Remembered values are kept per
/// type in dictionaries of that type: keyed by `AnyHashable`, boxing and hashing each value
/// through its existential cost more than a third of storing an imported batch.
final class JSONColumns {
  private let remembering: Bool
  private var caches: [ObjectIdentifier: AnyObject] = [:]

  /// The values of one type already encoded.
  private final class Remembered<T: Hashable> {
    var encoded: [T: SQLValue] = [:]
  }

  init(remembering: Bool = false) { self.remembering = remembering }

  func encode<T: Encodable & Hashable>(_ value: T) -> SQLValue {
    guard remembering else { return .text(String(decoding: WireCoding.encode(value), as: UTF8.self)) }
    let remembered: Remembered<T>
    if let known = caches[ObjectIdentifier(T.self)] {
      // Stored under its own type's identifier just below: the cast cannot fail.
      remembered = unsafeDowncast(known, to: Remembered<T>.self)
    } else {
      remembered = Remembered<T>()
      caches[ObjectIdentifier(T.self)] = remembered
    }
    if let known = remembered.encoded[value] { return known }
    let text = SQLValue.text(String(decoding: WireCoding.encode(value), as: UTF8.self))
    if remembered.encoded.count >= 4_096 { remembered.encoded.removeAll(keepingCapacity: true) }
    remembered.encoded[value] = text
    return text
  }
}
