/// Where the SDK gets the Apple Ads (AdServices) attribution token. On iOS the SDK uses
/// `AAAttribution.attributionToken()`; tests and the Linux demo pass their own provider
/// with `AdaptyConfiguration.Builder.with(attributionTokenProvider:)`.
public protocol AdaptyAttributionTokenProvider: Sendable {
  /// The token, or `AdaptyAttributionTokenError`.
  func attributionToken() async throws -> String
}

/// A fixed token, or none (as on a simulator or an organic install): for tests, demos and
/// benchmarks; apps use the AdServices default.
public struct AdaptyStaticAttributionTokenProvider: AdaptyAttributionTokenProvider {
  /// The token every call returns; nil makes every call throw `.unavailable`.
  public let token: String?

  /// A provider of `token`.
  public init(_ token: String?) { self.token = token }

  public func attributionToken() async throws -> String {
    guard let token else { throw AdaptyAttributionTokenError.unavailable("no attribution token on this device") }
    return token
  }
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
