import TollgateSupport

/// A packed profile's bytes: up to 32 held inline (no allocation to copy or keep), more in an
/// array.
package enum PackedBytes: Sendable {
  /// Four words of inline storage.
  package typealias Words = (UInt64, UInt64, UInt64, UInt64)

  /// How many bytes fit inline.
  static let inlineCapacity = MemoryLayout<Words>.size

  case inline(Words, count: UInt8)
  case heap([UInt8])

  /// Inline when they fit.
  package init(_ bytes: [UInt8]) {
    if let words = Self.words(bytes) {
      self = .inline(words, count: UInt8(bytes.count))
    } else {
      self = .heap(bytes)
    }
  }

  /// The inline form of `bytes`, nil when they do not fit.
  package static func words(_ bytes: [UInt8]) -> Words? {
    guard bytes.count <= inlineCapacity else { return nil }
    var words: Words = (0, 0, 0, 0)
    bytes.withUnsafeBytes { source in withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: source) } }
    return words
  }

  var count: Int {
    switch self {
    case .inline(_, let count): return Int(count)
    case .heap(let bytes): return bytes.count
    }
  }

  package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    switch self {
    case .inline(let words, let count):
      return try Swift.withUnsafeBytes(of: words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(Int(count)))) }
    case .heap(let bytes):
      return try bytes.withUnsafeBytes(body)
    }
  }

  /// A copy as an array.
  var array: [UInt8] { withUnsafeBytes { Array($0) } }
}
