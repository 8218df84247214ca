/// Picks the remote-config locale (server and SDK use the same rule) for a requested locale: the exact locale, else the bare
/// language, else another region of the same language, else `en`, else the first locale in
/// alphabetical order. Comparison ignores case and treats `_` as `-`.
public enum LocaleMatcher {
  /// The best locale among `available` for `requested` (nil when `available` is empty).
  public static func best(for requested: String?, among available: some Collection<String>) -> String? {
    let sorted = available.sorted()
    guard !sorted.isEmpty else { return nil }
    if let requested, !requested.isEmpty {
      let wanted = normalize(requested)
      let language = wanted.split(separator: "-").first.map(String.init) ?? wanted
      if let exact = sorted.first(where: { normalize($0) == wanted }) { return exact }
      if let bare = sorted.first(where: { normalize($0) == language }) { return bare }
      if let sibling = sorted.first(where: { normalize($0).hasPrefix(language + "-") }) {
        return sibling
      }
    }
    if let english = sorted.first(where: { normalize($0) == "en" }) { return english }
    return sorted[0]
  }

  /// Lower-cased, with `_` as `-`.
  public static func normalize(_ locale: String) -> String {
    locale.lowercased().replacingOccurrences(of: "_", with: "-")
  }
}
