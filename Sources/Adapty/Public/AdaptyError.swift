import Foundation

/// Every error the SDK throws. Switch on `adaptyErrorCode`; `errorCode` is its number.
public struct AdaptyError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
  /// The documented numeric codes.
  public enum ErrorCode: Int, Sendable, Hashable {
    /// Something failed that has no more precise code.
    case unknown = 0
    /// The client may not make the request (StoreKit).
    case clientInvalid = 1
    /// The payment was cancelled (StoreKit).
    case paymentCancelled = 2
    /// The purchase is invalid (StoreKit).
    case paymentInvalid = 3
    /// This device may not make the payment (StoreKit).
    case paymentNotAllowed = 4
    /// The product is not available in the current storefront (StoreKit).
    case storeProductNotAvailable = 5
    /// The flow has no product ids.
    case noProductIDsFound = 1000
    /// The store knows none of the flow's products.
    case noProductsFound = 1001
    /// The store could not be asked for products now.
    case productRequestFailed = 1002
    /// In-app purchases are not allowed on this device (or there is no store here).
    case cantMakePayments = 1003
    /// There was nothing to restore.
    case noPurchasesToRestore = 1004
    /// The purchase failed, or the server refused its transaction.
    case productPurchaseFailed = 1006
    /// The SDK is not activated, or the server rejected the API key (401/403).
    case notActivated = 2002
    /// The server refused the request as invalid (4xx other than auth).
    case badRequest = 2003
    /// The server failed or asked to slow down (5xx, 429).
    case serverError = 2004
    /// No network, or the connection failed.
    case networkFailed = 2005
    /// A response or file could not be decoded.
    case decodingFailed = 2006
    /// A request could not be encoded.
    case encodingFailed = 2009
    /// A parameter is invalid (e.g. a custom attribute key).
    case wrongParam = 3001
    /// `activate` was called a second time.
    case activateOnceError = 3005
    /// The profile changed (logout/identify) while the call was running.
    case profileWasChanged = 3006
    /// `loadTimeout` passed and there was neither a cached nor a fallback flow.
    case fetchTimeoutError = 3101
    /// `showStoreMessages` is already running.
    case storeMessagesShowInProgress = 3201
    /// There is no window scene to show store messages in.
    case storeMessagesNoWindowScene = 3202
  }

  /// The code.
  public let adaptyErrorCode: ErrorCode
  /// What happened and what to do about it.
  public let message: String

  /// The numeric code (`adaptyErrorCode.rawValue`).
  public var errorCode: Int { adaptyErrorCode.rawValue }

  /// Creates an error.
  public init(_ code: ErrorCode, _ message: String) {
    self.adaptyErrorCode = code
    self.message = message
  }

  public var description: String { "AdaptyError(\(errorCode)): \(message)" }
  public var errorDescription: String? { description }

  static func notActivated() -> AdaptyError {
    AdaptyError(.notActivated, "Call Adapty.activate(…) before using the SDK.")
  }

  static func activateOnce() -> AdaptyError {
    AdaptyError(.activateOnceError, "Adapty.activate(…) was already called; activate once per app launch.")
  }
}
