import Foundation
import TollgateAPI
import TollgateSupport

/// What changed between two configuration documents, in one line for the history:
/// `placements +paywall_2 ~onboarding; audiences -old; settings ~`. Lists of objects with
/// an `id` are compared item by item; other top-level members as a whole.
package enum ConfigDiff {
  package static func summary(from old: Data?, to new: Data) -> String {
    guard let newDocument = try? WireCoding.decoder.decode(JSONValue.self, from: new),
      case .object(let after) = newDocument
    else { return "not an object" }
    guard let old, let oldDocument = try? WireCoding.decoder.decode(JSONValue.self, from: old),
      case .object(let before) = oldDocument
    else { return "first configuration" }
    var parts: [String] = []
    for member in Set(before.keys).union(after.keys).sorted() {
      let was = before[member]
      let now = after[member]
      guard was != now else { continue }
      if let wasItems = items(was), let nowItems = items(now) {
        var changes: [String] = []
        for id in Set(wasItems.keys).union(nowItems.keys).sorted() {
          switch (wasItems[id], nowItems[id]) {
          case (nil, _): changes.append("+\(id)")
          case (_, nil): changes.append("-\(id)")
          case (let a, let b) where a != b: changes.append("~\(id)")
          default: break
          }
        }
        parts.append(changes.isEmpty ? "\(member) reordered" : "\(member) \(changes.joined(separator: " "))")
      } else {
        parts.append(was == nil ? "\(member) +" : now == nil ? "\(member) -" : "\(member) ~")
      }
    }
    return parts.isEmpty ? "no change" : parts.joined(separator: "; ")
  }

  /// An array of objects that all have a string `id`, keyed by it.
  private static func items(_ value: JSONValue?) -> [String: JSONValue]? {
    guard case .array(let elements)? = value else { return value == nil ? [:] : nil }
    var byId: [String: JSONValue] = [:]
    for element in elements {
      guard case .object(let object) = element, case .string(let id)? = object["id"] else { return nil }
      byId[id] = element
    }
    return byId
  }
}
