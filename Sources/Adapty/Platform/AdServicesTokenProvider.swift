#if canImport(AdServices)
  import AdServices
  import Foundation

  /// `AAAttribution.attributionToken()` (iOS 14.3+): synchronous and possibly blocking when
  /// offline, so it runs on a background task, never the main thread. Simulators have no token.
  struct AdServicesTokenProvider: AdaptyAttributionTokenProvider {
    func attributionToken() async throws -> String {
      #if targetEnvironment(simulator)
        throw AdaptyAttributionTokenError.unavailable("AdServices has no attribution token on simulators")
      #else
        try await Task.detached(priority: .utility) {
          do {
            return try AAAttribution.attributionToken()
          } catch let error as NSError where error.domain == AAAttributionErrorDomain {
            // 3 = platformNotSupported: permanent; 1 = network, 2 = internal: transient.
            if error.code == AAAttributionErrorCode.platformNotSupported.rawValue {
              throw AdaptyAttributionTokenError.unavailable("platform not supported")
            }
            throw AdaptyAttributionTokenError.temporarilyUnavailable("AdServices error \(error.code)")
          }
        }.value
      #endif
    }
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
