import Foundation
import TollgateAPI
import TollgateSupport

/// An image a paywall document references by SHA-256: PNG, JPEG or WebP, told apart by its
/// bytes (never its name or declared type), with its pixel size read from its header.
public struct ImageAsset: Sendable, Hashable {
  /// Bytes an upload may have (the route's own body limit).
  public static let maximumBytes = 2 * 1024 * 1024
  /// Pixels on a side, at most.
  public static let maximumSide = 4_096
  /// Pixels in all, at most.
  public static let maximumPixels = 12_000_000

  public var mediaType: String
  public var width: Int
  public var height: Int

  /// What `data` is, or why it is refused (422 `invalid_asset`): not a PNG, JPEG or WebP by its
  /// bytes (whatever its Content-Type says), an unreadable header, too many pixels.
  public static func inspect(_ data: Data) throws(DomainError) -> ImageAsset {
    let bytes = [UInt8](data.prefix(64 * 1024))
    let asset: ImageAsset?
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      asset = png(bytes)
    } else if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
      asset = jpeg(bytes)
    } else if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
      asset = webp(bytes)
    } else {
      throw DomainError(
        .invalidAsset, "Assets are PNG, JPEG or WebP images, told by their bytes; these are none of them.")
    }
    guard let asset, asset.width > 0, asset.height > 0 else {
      throw DomainError(.invalidAsset, "The image's header cannot be read.")
    }
    guard asset.width <= maximumSide, asset.height <= maximumSide, asset.width * asset.height <= maximumPixels else {
      throw DomainError(
        .invalidAsset,
        "The image is \(asset.width) × \(asset.height) pixels; at most \(maximumSide) on a side and \(maximumPixels) in all."
      )
    }
    return asset
  }

  static func bigEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
    guard at >= 0, at + count <= bytes.count else { return nil }
    return bytes[at..<(at + count)].reduce(0) { $0 << 8 | Int($1) }
  }

  static func littleEndian(_ bytes: [UInt8], _ at: Int, _ count: Int) -> Int? {
    guard at >= 0, at + count <= bytes.count else { return nil }
    return bytes[at..<(at + count)].reversed().reduce(0) { $0 << 8 | Int($1) }
  }

  /// PNG: the IHDR chunk comes first, width and height as 32-bit big-endian.
  static func png(_ bytes: [UInt8]) -> ImageAsset? {
    guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8),
      let width = bigEndian(bytes, 16, 4), let height = bigEndian(bytes, 20, 4)
    else { return nil }
    return ImageAsset(mediaType: "image/png", width: width, height: height)
  }

  /// JPEG: segments up to a start-of-frame marker (C0–CF but C4, C8, CC), whose height and width follow.
  static func jpeg(_ bytes: [UInt8]) -> ImageAsset? {
    var index = 2
    while index + 4 <= bytes.count {
      guard bytes[index] == 0xFF else { return nil }
      let marker = bytes[index + 1]
      if marker == 0xFF {
        index += 1
        continue
      }
      guard let length = bigEndian(bytes, index + 2, 2), length >= 2 else { return nil }
      if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
        guard let height = bigEndian(bytes, index + 5, 2), let width = bigEndian(bytes, index + 7, 2) else {
          return nil
        }
        return ImageAsset(mediaType: "image/jpeg", width: width, height: height)
      }
      index += 2 + length
    }
    return nil
  }

  /// WebP: VP8X (canvas size), VP8L (lossless, 14-bit sizes) or VP8 (lossy, after the start code).
  static func webp(_ bytes: [UInt8]) -> ImageAsset? {
    guard bytes.count >= 30 else { return nil }
    let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
    switch chunk {
    case "VP8X":
      guard let width = littleEndian(bytes, 24, 3), let height = littleEndian(bytes, 27, 3) else { return nil }
      return ImageAsset(mediaType: "image/webp", width: width + 1, height: height + 1)
    case "VP8L":
      guard bytes[20] == 0x2F, let bits = littleEndian(bytes, 21, 4) else { return nil }
      return ImageAsset(mediaType: "image/webp", width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
    case "VP8 ":
      guard Array(bytes[23..<26]) == [0x9D, 0x01, 0x2A], let width = littleEndian(bytes, 26, 2),
        let height = littleEndian(bytes, 28, 2)
      else { return nil }
      return ImageAsset(mediaType: "image/webp", width: width & 0x3FFF, height: height & 0x3FFF)
    default: return nil
    }
  }
}
