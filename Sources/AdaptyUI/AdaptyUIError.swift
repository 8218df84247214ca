import Adapty

/// Why `AdaptyUI` could not prepare or draw a paywall.
public enum AdaptyUIError: Error, Sendable, Hashable, CustomStringConvertible {
  /// `AdaptyUI` draws with UIKit and SwiftUI: this platform has neither.
  case platformNotSupported
  /// `Adapty.activate` was not called before `AdaptyUI.activate`.
  case adaptyNotActivated
  /// `AdaptyUI.activate` was not called.
  case adaptyUINotActivated
  /// `AdaptyUI.activate` was called a second time.
  case activateOnce
  /// The flow carries no paywall document (no `paywall` in its configuration): draw it
  /// yourself from its remote config.
  case noPaywallDocument(flowId: String)
  /// The document is newer than this SDK and the fallback file has no version it can draw.
  case unsupportedDocumentVersion(Int)
  /// The document could not be read.
  case invalidDocument(String)

  public var description: String {
    switch self {
    case .platformNotSupported: "AdaptyUIError: AdaptyUI needs UIKit and SwiftUI."
    case .adaptyNotActivated: "AdaptyUIError: call Adapty.activate(…) before AdaptyUI.activate()."
    case .adaptyUINotActivated: "AdaptyUIError: call AdaptyUI.activate() first."
    case .activateOnce: "AdaptyUIError: AdaptyUI.activate() was already called."
    case .noPaywallDocument(let flowId):
      "AdaptyUIError: flow \(flowId) has no paywall document; design one in the console's Paywalls page."
    case .unsupportedDocumentVersion(let version):
      "AdaptyUIError: paywall document version \(version) is newer than this SDK draws; update the SDK."
    case .invalidDocument(let reason): "AdaptyUIError: the paywall document could not be read: \(reason)"
    }
  }
}
