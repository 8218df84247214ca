import TollgateSupport

/// A version such as `2.4`, `2.4.1` or `v3.0.0-beta.2`, compared as Semantic Versioning
/// says: numeric parts in order (missing parts are 0), then a pre-release sorts before
/// the release; pre-release identifiers of digits only compare as numbers, others (a hyphen
/// included, as in `--1`) as ASCII text and after every numeric one (§11.4). Build metadata
/// (`+…`) is ignored.
package struct SemanticVersion: Comparable, Sendable {
  let numbers: [Int]
  let prerelease: [Substring]

  init?(_ text: String) {
    // Most versions are plain `2.4.1`: read from the bytes without a substring (a profile's
    // version is parsed for every rule that compares it, on every placement read).
    if let numbers = Self.plainNumbers(text.utf8) {
      self.numbers = numbers
      self.prerelease = []
      return
    }
    // Spaces and tabs around it are ignored (Foundation's trimming is costly on the hot path).
    var body = Substring(text)
    while let first = body.first, first.isWhitespace, !first.isNewline { body = body.dropFirst() }
    while let last = body.last, last.isWhitespace, !last.isNewline { body = body.dropLast() }
    if body.first == "v" || body.first == "V" { body = body.dropFirst() }
    if let plus = body.firstIndex(of: "+") { body = body[..<plus] }
    var release = body
    var pre: [Substring] = []
    if let dash = body.firstIndex(of: "-") {
      release = body[..<dash]
      pre = body[body.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
      guard !pre.isEmpty, pre.allSatisfy({ !$0.isEmpty }) else { return nil }
    }
    let parts = release.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...4).contains(parts.count) else { return nil }
    var numbers: [Int] = []
    for part in parts {
      guard Self.isNumeric(part), let number = Int(part) else { return nil }
      numbers.append(number)
    }
    self.numbers = numbers
    self.prerelease = pre
  }

  package static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
    !(lhs < rhs) && !(rhs < lhs)
  }

  package static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
    let width = max(lhs.numbers.count, rhs.numbers.count)
    for index in 0..<width {
      let left = index < lhs.numbers.count ? lhs.numbers[index] : 0
      let right = index < rhs.numbers.count ? rhs.numbers[index] : 0
      if left != right { return left < right }
    }
    // A release sorts after its own pre-releases.
    if lhs.prerelease.isEmpty { return false }
    if rhs.prerelease.isEmpty { return true }
    for (left, right) in zip(lhs.prerelease, rhs.prerelease) where left != right {
      switch (isNumeric(left), isNumeric(right)) {
      case (true, true):
        // Digits of any length: the longer number (leading zeros aside) is the larger.
        let l = left.drop { $0 == "0" }
        let r = right.drop { $0 == "0" }
        return l.count != r.count ? l.count < r.count : l < r
      case (true, false): return true
      case (false, true): return false
      case (false, false): return Array(left.utf8).lexicographicallyPrecedes(right.utf8)
      }
    }
    return lhs.prerelease.count < rhs.prerelease.count
  }

  /// The numbers of 1 to 4 dot-separated parts of digits only (each short enough not to
  /// overflow), or nil for anything else: the general reading decides those.
  private static func plainNumbers(_ bytes: String.UTF8View) -> [Int]? {
    var numbers: [Int] = []
    numbers.reserveCapacity(4)
    var current = 0
    var digits = 0
    for byte in bytes {
      if byte == UInt8(ascii: ".") {
        guard digits > 0, numbers.count < 3 else { return nil }
        numbers.append(current)
        (current, digits) = (0, 0)
      } else if (0x30...0x39).contains(byte), digits < 18 {
        current = current * 10 + Int(byte - 0x30)
        digits += 1
      } else {
        return nil
      }
    }
    guard digits > 0 else { return nil }
    numbers.append(current)
    return numbers
  }

  /// Digits only: `Int` alone would also read `-1` and `+1`.
  private static func isNumeric(_ part: Substring) -> Bool {
    !part.isEmpty && part.utf8.allSatisfy { (0x30...0x39).contains($0) }
  }
}
