import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The images a fallback file carries so the bundled paywall shows its design offline: the
/// documents' references, smallest first, each while it fits in the budget. What does not fit
/// is left out (the SDK downloads it when online, and draws without it until then).
enum FallbackAssets {
  /// `file` with `assets` filled from `asset` (nil when no document references an image).
  static func embed(
    in file: FallbackFile, budget: Int, asset: (String) throws -> StoredAsset?
  ) throws -> FallbackFile {
    var result = file
    result.assets = try images(of: file, budget: budget, asset: asset)
    return result
  }

  /// The images `file`'s documents reference that fit in `budget` bytes, base64 by SHA-256; nil
  /// when no document references an image.
  static func images(
    of file: FallbackFile, budget: Int, asset: (String) throws -> StoredAsset?
  ) throws -> [String: String]? {
    var hashes: Set<String> = []
    for placement in file.placements {
      guard let paywall = placement.flow.paywall else { continue }
      hashes.formUnion(PaywallDocument.assetReferences(in: paywall).map(\.sha256))
    }
    guard !hashes.isEmpty else { return nil }
    let stored = try hashes.compactMap(asset).sorted { ($0.body.count, $0.sha256) < ($1.body.count, $1.sha256) }
    var embedded: [String: String] = [:]
    var spent = 0
    for image in stored where spent + image.body.count <= budget {
      embedded[image.sha256] = image.body.base64EncodedString()
      spent += image.body.count
    }
    return embedded
  }
}
