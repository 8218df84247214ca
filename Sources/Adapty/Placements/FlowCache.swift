import Foundation

/// Flows the server returned, kept on disk so a later launch (or a failed request) can
/// answer without the network.
actor FlowCache {
  /// One cached answer.
  struct Entry: Codable, Sendable, Hashable {
    var flow: AdaptyFlow
    var etag: String?
    var storedAt: Date
  }

  /// Segmented answers and default-audience answers are kept apart.
  enum Kind: String, Sendable {
    case segmented
    case defaultAudience = "default"
  }

  private var entries: [String: Entry]
  private let store: LocalStore

  init(store: LocalStore) {
    self.store = store
    entries = store.read([String: Entry].self, from: StoredFile.flows) ?? [:]
  }

  static func key(_ kind: Kind, placementId: String, locale: String?) -> String {
    "\(kind.rawValue)|\(placementId)|\(locale ?? "")"
  }

  func entry(_ kind: Kind, placementId: String, locale: String?) -> Entry? {
    entries[Self.key(kind, placementId: placementId, locale: locale)]
  }

  func store(_ entry: Entry, _ kind: Kind, placementId: String, locale: String?) {
    entries[Self.key(kind, placementId: placementId, locale: locale)] = entry
    store.write(entries, to: StoredFile.flows)
  }

  /// Forgets segmented answers (the profile changed: they were someone else's).
  func dropSegmented() {
    entries = entries.filter { !$0.key.hasPrefix(Kind.segmented.rawValue + "|") }
    store.write(entries, to: StoredFile.flows)
  }
}
