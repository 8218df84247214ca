import Foundation
import Synchronization
import TollgateAPI

/// The fallback file set with `Adapty.setFallback(fileURL:)`, process-wide so it can be set
/// before activation.
final class FallbackFlows: Sendable {
  static let shared = FallbackFlows()

  /// The newest format this build reads; newer files are read too, ignoring what they add.
  static let knownFormatVersion = FallbackFile.currentFormatVersion

  private let file = Mutex<FallbackFile?>(nil)

  init() {}

  /// Loads and keeps a fallback file; a file that is not one is `decodingFailed` and the
  /// previous file stays.
  func load(from url: URL) throws(AdaptyError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw AdaptyError(.decodingFailed, "Cannot read the fallback file at \(url.path): \(error)")
    }
    let decoded: FallbackFile
    do {
      decoded = try WireCoding.decoder.decode(FallbackFile.self, from: data)
    } catch {
      throw AdaptyError(
        .decodingFailed, "\(url.lastPathComponent) is not a Tollgate fallback file (tollgate export-fallback): \(error)"
      )
    }
    guard decoded.formatVersion >= 1 else {
      throw AdaptyError(.decodingFailed, "Fallback format version \(decoded.formatVersion) is not supported.")
    }
    if decoded.formatVersion > Self.knownFormatVersion {
      Log.info(
        "fallback file format \(decoded.formatVersion) is newer than \(Self.knownFormatVersion); reading what this SDK knows"
      )
    }
    file.withLock { $0 = decoded }
    Log.info("fallback file loaded: revision \(decoded.revision), \(decoded.placements.count) placement(s)")
  }

  /// The fallback flow for a placement, in the best locale.
  func flow(placementId: String, locale: String?) -> AdaptyFlow? {
    file.withLock { file -> AdaptyFlow? in
      guard let file, let placement = file.placements.first(where: { $0.id == placementId }) else { return nil }
      let flow = placement.flow
      let chosen = LocaleMatcher.best(for: locale, among: flow.remoteConfigs.keys)
      return AdaptyFlow(
        placement: AdaptyPlacement(
          id: placement.id, revision: Int(file.revision), audienceName: placement.audienceName, abTestName: nil),
        id: flow.id, name: flow.name, variationId: flow.variationId,
        remoteConfig: chosen.map { AdaptyRemoteConfig(locale: $0, data: flow.remoteConfigs[$0]!) },
        vendorProductIds: flow.products, source: .fallback, paywallDocument: flow.paywall)
    }
  }

  /// An image the file embeds (`tollgate export-fallback` includes the small ones).
  func asset(sha256: String) -> Data? {
    file.withLock { $0?.assets?[sha256] }.flatMap { Data(base64Encoded: $0) }
  }

  /// Forgets the file (tests).
  func reset() { file.withLock { $0 = nil } }
}

extension AdaptyRemoteConfig {
  init(locale: String, data: JSONValue) {
    self.init(
      locale: locale, jsonString: String(decoding: (try? data.canonicalData()) ?? Data("null".utf8), as: UTF8.self))
  }
}

extension AdaptyFlow {
  init(_ response: PlacementFlowResponse, source: Source) {
    self.init(
      placement: AdaptyPlacement(
        id: response.placement.id, revision: Int(response.placement.revision),
        audienceName: response.placement.audienceName, abTestName: response.placement.abTestName),
      id: response.flow.id, name: response.flow.name, variationId: response.flow.variationId,
      remoteConfig: response.flow.remoteConfig.map { AdaptyRemoteConfig(locale: $0.locale, data: $0.data) },
      vendorProductIds: response.flow.products, source: source, paywallDocument: response.flow.paywall)
  }
}
