import Foundation

/// Where a request comes from, as far as the connection and trusted proxies say: the client's
/// address, whether it came over TLS, its cookies.
extension Request {
  /// The connection's address, or — when the connection comes from a trusted proxy — the last
  /// address that proxy added to `X-Forwarded-For`.
  public func address(trusting proxies: Set<String>) -> String {
    guard let forwarded = headers["x-forwarded-for"]?.split(separator: ",").last,
      proxies.contains(clientAddress)
    else { return clientAddress }
    return forwarded.trimmingCharacters(in: .whitespaces)
  }

  /// Whether a trusted proxy says the client used HTTPS (`X-Forwarded-Proto: https`); the
  /// server itself speaks plain HTTP.
  public func isSecure(trusting proxies: Set<String>) -> Bool {
    proxies.contains(clientAddress) && headers["x-forwarded-proto"]?.lowercased() == "https"
  }

  /// The value of the cookie `name` (RFC 6265's `Cookie: a=1; b=2`), or nil.
  public func cookie(_ name: String) -> String? {
    guard let header = headers["cookie"] else { return nil }
    for pair in header.split(separator: ";") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
      return parts[1].trimmingCharacters(in: .whitespaces)
    }
    return nil
  }
}
