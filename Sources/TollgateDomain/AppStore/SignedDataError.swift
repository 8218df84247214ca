import TollgateAPI
import TollgateSupport

/// Why Apple-signed data (a transaction, renewal info or notification) was refused. Each case
/// is the `error.code` of the 422 answer.
public enum SignedDataError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not a compact JWS with a JSON header and payload.
  case malformed(String)
  /// Not ES256, or the signature does not match the header and payload.
  case invalidSignature(String)
  /// The certificate chain is not Apple's: count, root, OIDs, chain signatures or validity.
  case untrustedCertificate(String)
  /// Signed by Apple, but for another app.
  case bundleMismatch(String)
  /// Signed by Apple, but from an environment this app does not accept.
  case environmentNotAllowed(String)

  /// The wire code as a string.
  public var code: String { errorCode.rawValue }

  /// The wire code.
  public var errorCode: APIErrorCode {
    switch self {
    case .malformed: .malformedJWS
    case .invalidSignature: .invalidSignature
    case .untrustedCertificate: .untrustedCertificate
    case .bundleMismatch: .bundleMismatch
    case .environmentNotAllowed: .environmentNotAllowed
    }
  }

  /// The human explanation.
  public var message: String {
    switch self {
    case .malformed(let text), .invalidSignature(let text), .untrustedCertificate(let text),
      .bundleMismatch(let text), .environmentNotAllowed(let text):
      return text
    }
  }

  public var description: String { "\(code): \(message)" }
}
