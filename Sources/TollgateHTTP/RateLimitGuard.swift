import Foundation
import Synchronization
import TollgateSupport

/// Per-address and per-secret-key limits, checked before a matched route's handler runs;
/// 429 `rate_limited` with `Retry-After` beyond them. Health checks and metrics are not limited.
package struct RateLimitGuard: RouteGuard {
  let limiter: RateLimiter
  let limits: ParsedRateLimits
  /// Told once per peer that sends `X-Forwarded-For` without being a trusted proxy.
  let untrusted: UntrustedForwarders

  /// Every stored field.
  package init(limiter: RateLimiter, limits: ParsedRateLimits, untrusted: UntrustedForwarders) {
    self.limiter = limiter
    self.limits = limits
    self.untrusted = untrusted
  }

  package func admit(_ request: Request, route: String) throws {
    guard route != "/health", route != "/metrics" else { return }
    if let wait = limiter.take("address " + clientAddress(request), limits.address) {
      throw Self.rateLimited(wait, "Too many requests from this address")
    }
    if route.hasPrefix("/v1/admin"), let key = request.header("authorization"),
      let wait = limiter.take("admin " + key, limits.admin)
    {
      throw Self.rateLimited(wait, "Too many admin requests with this key")
    }
  }

  /// The client's address: the connection's, or — when the connection comes from a trusted
  /// proxy — the last address that proxy added to `X-Forwarded-For`.
  func clientAddress(_ request: Request) -> String {
    // The stored (lower-case) key: no name to lower-case on every request.
    if request.headers["x-forwarded-for"] != nil, !limits.trustedProxies.contains(request.clientAddress) {
      untrusted.saw(request.clientAddress)
    }
    return request.address(trusting: limits.trustedProxies)
  }

  /// 429 with the seconds until a token is back.
  package static func rateLimited(_ wait: Double, _ what: String) -> DomainError {
    let seconds = max(1, Int(wait.rounded(.up)))
    return DomainError(.rateLimited, "\(what); retry after \(seconds) s.", retryAfter: seconds)
  }
}

/// Peers that sent `X-Forwarded-For` without being named by `--trusted-proxies`: behind such a
/// proxy every client shares the proxy's rate-limit bucket, so each is logged once with the fix
/// (at most 64, so a client forging the header cannot grow the set).
package final class UntrustedForwarders: Sendable {
  private let seen = Mutex<Set<String>>([])
  private let logger: Logger

  package init(logger: Logger) {
    self.logger = logger
  }

  func saw(_ peer: String) {
    let first = seen.withLock { seen in seen.count < 64 && seen.insert(peer).inserted }
    guard first else { return }
    logger.warn(
      "\(peer) sent X-Forwarded-For but is not a trusted proxy, so its clients share one rate-limit bucket; "
        + "if it is your load balancer, start tollgate serve with --trusted-proxies \(peer) (TOLLGATE_TRUSTED_PROXIES)")
  }
}
