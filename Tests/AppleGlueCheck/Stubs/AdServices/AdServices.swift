// Interface stubs of the AdServices declarations the SDK's glue uses, written from Apple's
// documentation. Nothing here runs: every body is `fatalError()`.
import Foundation

/// Mirrors https://developer.apple.com/documentation/adservices/aaattribution
/// (`class AAAttribution : NSObject`, iOS 14.3+).
@available(iOS 14.3, macCatalyst 14.3, macOS 11.1, *)
open class AAAttribution: NSObject {
  /// Mirrors https://developer.apple.com/documentation/adservices/aaattribution/attributiontoken()
  /// (`class func attributionToken() throws -> String`): synchronous, may block.
  open class func attributionToken() throws -> String { fatalError() }
}

/// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerrordomain
/// (`let AAAttributionErrorDomain: String`).
@available(iOS 14.3, macCatalyst 14.3, macOS 11.1, *)
public let AAAttributionErrorDomain: String = { fatalError() }()

/// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror
/// (`struct AAAttributionError`, the Swift error of `NS_ERROR_ENUM AAAttributionErrorCode`;
/// the C name `AAAttributionErrorCode` is not a Swift type).
@available(iOS 14.3, macCatalyst 14.3, macOS 11.1, *)
public struct AAAttributionError: CustomNSError, Hashable, Sendable {
  /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/code
  /// (`enum Code : Int`).
  public enum Code: Int, Sendable, Hashable {
    /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/code/networkerror
    case networkError = 1
    /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/code/internalerror
    case internalError = 2
    /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/code/platformnotsupported
    case platformNotSupported = 3
  }

  /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/errordomain
  public static var errorDomain: String { fatalError() }
  /// The code of this error (`_BridgedStoredNSError.code`).
  public var code: Code { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/networkerror
  public static var networkError: Code { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/internalerror
  public static var internalError: Code { fatalError() }
  /// Mirrors https://developer.apple.com/documentation/adservices/aaattributionerror/platformnotsupported
  public static var platformNotSupported: Code { fatalError() }
}
