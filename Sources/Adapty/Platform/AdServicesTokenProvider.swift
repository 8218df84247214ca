#if canImport(AdServices)
  import AdServices
  import Foundation

  /// `AAAttribution.attributionToken()` (iOS 14.3+): synchronous and possibly blocking when
  /// offline, so it runs on a background task, never the main thread. Simulators have no token.
  struct AdServicesTokenProvider: AdaptyAttributionTokenProvider {
    func attributionToken() async throws -> String {
      if Self.runsOnSimulator {
        throw AdaptyAttributionTokenError.unavailable("AdServices has no attribution token on simulators")
      }
      return try await Task.detached(priority: .utility) {
        do {
          return try AAAttribution.attributionToken()
        } catch let error as AAAttributionError {
          // platformNotSupported is permanent; networkError and internalError are transient.
          if error.code == .platformNotSupported {
            throw AdaptyAttributionTokenError.unavailable("platform not supported")
          }
          throw AdaptyAttributionTokenError.temporarilyUnavailable("AdServices error \(error.code.rawValue)")
        }
      }.value
    }

    /// A constant rather than an `#if` around the call, so the call is compiled everywhere.
    #if targetEnvironment(simulator)
      static let runsOnSimulator = true
    #else
      static let runsOnSimulator = false
    #endif
  }

  extension AttributionTokenProviders {
    static var platformDefault: (any AdaptyAttributionTokenProvider)? { AdServicesTokenProvider() }
  }
#else
  extension AttributionTokenProviders {
    /// No AdServices here: nothing is collected unless a provider is configured.
    static var platformDefault: (any AdaptyAttributionTokenProvider)? { nil }
  }
#endif

/// The default token provider of this platform.
enum AttributionTokenProviders {}
