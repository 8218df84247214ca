/// Where the SDK gets the Apple Ads (AdServices) attribution token. On iOS the SDK uses
/// `AAAttribution.attributionToken()`; tests and the Linux demo pass their own provider
/// with `AdaptyConfiguration.Builder.with(attributionTokenProvider:)`.
public protocol AdaptyAttributionTokenProvider: Sendable {
  /// The token, or `AdaptyAttributionTokenError`.
  func attributionToken() async throws -> String
}

/// Why a token could not be had.
public enum AdaptyAttributionTokenError: Error, Sendable, Hashable {
  /// It never will be on this device (simulator, platform not supported): the SDK stops.
  case unavailable(String)
  /// Try again later (no network, internal error): the SDK retries with back-off.
  case temporarilyUnavailable(String)
}

extension AdaptyConfiguration.Builder {
  /// Replaces the attribution token source (a test and demo hook; apps never need it).
  /// `nil` turns Apple Ads attribution collection off.
  @discardableResult
  public func with(attributionTokenProvider provider: (any AdaptyAttributionTokenProvider)?) -> Self {
    dependencies.attributionTokenProvider = .some(provider)
    return self
  }
}
