import Adapty
import Foundation

/// Why `AdaptyUI` could not prepare or draw a paywall: Adapty 3.x's cases and codes
/// (`AdaptyUIErrorDomain`, 4001…4300). A flow without a paywall document is not one of them:
/// `getPaywallConfiguration` throws `AdaptyError` `wrongParam` (3001) for it, as Adapty does.
public enum AdaptyUIError: Error, Sendable, CustomNSError, CustomStringConvertible, CustomDebugStringConvertible {
  /// `AdaptyUI` draws with UIKit and SwiftUI: this platform has neither.
  case platformNotSupported
  /// `Adapty.activate` was not called before `AdaptyUI.activate`.
  case adaptyNotActivated
  /// `AdaptyUI.activate` was not called.
  case adaptyUINotActivated
  /// `AdaptyUI.activate` was called a second time.
  case activateOnce
  /// The paywall document is newer than this SDK draws, and the fallback file has no
  /// version it can draw.
  case unsupportedTemplate(String)
  /// The paywall document could not be read (a block or value of the wrong kind).
  case wrongComponentType(String)
  /// A web view failed (Tollgate's paywalls use none; kept for Adapty's shape).
  case webKit(any Error)

  /// The codes, as Adapty numbers them.
  public enum Code: Int, Sendable {
    case platformNotSupported = 4001
    case adaptyNotActivated = 4002
    case adaptyUINotActivated = 4003
    case activateOnce = 4005
    case unsupportedTemplate = 4100
    case wrongComponentType = 4103
    case webKit = 4200
    case platformView = 4300
  }

  /// The error domain of `AdaptyUIError` as an `NSError`.
  public static let AdaptyUIErrorDomain = "AdaptyUIErrorDomain"

  /// `AdaptyUIErrorDomain`.
  public static var errorDomain: String { AdaptyUIErrorDomain }

  /// This error's code.
  public var code: Code {
    switch self {
    case .platformNotSupported: .platformNotSupported
    case .adaptyNotActivated: .adaptyNotActivated
    case .adaptyUINotActivated: .adaptyUINotActivated
    case .activateOnce: .activateOnce
    case .unsupportedTemplate: .unsupportedTemplate
    case .wrongComponentType: .wrongComponentType
    case .webKit: .webKit
    }
  }

  /// The code as a number (`CustomNSError`).
  public var errorCode: Int { code.rawValue }

  /// One line saying what went wrong and what to do.
  public var description: String {
    switch self {
    case .platformNotSupported: "AdaptyUIError.platformNotSupported: AdaptyUI needs UIKit and SwiftUI."
    case .adaptyNotActivated: "AdaptyUIError.adaptyNotActivated: call Adapty.activate(…) before AdaptyUI.activate()."
    case .adaptyUINotActivated: "AdaptyUIError.adaptyUINotActivated: call AdaptyUI.activate() first."
    case .activateOnce: "AdaptyUIError.activateOnce: AdaptyUI.activate() was already called."
    case .unsupportedTemplate(let reason): "AdaptyUIError.unsupportedTemplate: \(reason)"
    case .wrongComponentType(let reason):
      "AdaptyUIError.wrongComponentType: the paywall document could not be read: \(reason)"
    case .webKit(let error): "AdaptyUIError.webKit: \(error)"
    }
  }

  /// The same as `description`.
  public var debugDescription: String { description }

  /// A document newer than this SDK draws.
  static func unsupportedDocumentVersion(_ version: Int) -> AdaptyUIError {
    .unsupportedTemplate("paywall document version \(version) is newer than this SDK draws; update the SDK.")
  }
}

extension AdaptyUIError: Equatable {
  /// Same case and same reason (a web view's errors by their description).
  public static func == (lhs: AdaptyUIError, rhs: AdaptyUIError) -> Bool {
    lhs.code == rhs.code && lhs.description == rhs.description
  }
}
