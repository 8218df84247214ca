import Synchronization
import TollgateAPI
import TollgateSupport

/// The profile attributes an app's audience rules read, in a fixed order: what a packed
/// profile keeps for that configuration. `locale` is always there (a placement answer falls
/// back to the profile's locale).
package final class TargetingSchema: Sendable {
  /// The attribute names, sorted.
  package let names: [String]
  /// Where each name's value sits among the packed values.
  let positions: [String: Int]
  /// The configured access levels (a level the profile never had reads as inactive).
  let accessLevels: [AccessLevelDefinition]
  /// The access levels' key: purchases derived under another one are derived again.
  let levelsKey: String
  /// The same number for the same names and access levels, in this process: a packed
  /// profile is read only with the schema it was packed for.
  package let id: UInt32

  private static let registry = Mutex<[String: UInt32]>([:])

  init(reading names: Set<String>, accessLevels: [AccessLevelDefinition]) {
    let sorted = names.union(["locale"]).sorted()
    self.names = sorted
    positions = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, $0) })
    self.accessLevels = accessLevels
    levelsKey = PurchaseDerivation.key(accessLevels)
    let fingerprint = sorted.joined(separator: "\n") + "\u{1}" + levelsKey
    id = Self.registry.withLock { registry in
      if let known = registry[fingerprint] { return known }
      let next = UInt32(registry.count + 1)
      registry[fingerprint] = next
      return next
    }
  }

  /// The schema of a configuration's audiences.
  convenience init(audiences: some Sequence<Rule>, accessLevels: [AccessLevelDefinition]) {
    self.init(reading: audiences.reduce(into: []) { $0.formUnion($1.attributeNames) }, accessLevels: accessLevels)
  }
}
