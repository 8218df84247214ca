import Foundation
import Synchronization
import TollgateSupport

/// Token buckets by key: each key may spend `burst` at once and earns `perSecond` back.
/// Buckets live in shards (one lock each), so concurrent requests rarely wait on one
/// another; a shard that grows past its share forgets its full buckets (they carry no
/// state a fresh bucket would not). Per instance: behind several instances a client gets
/// up to that many times the limit.
package final class RateLimiter: Sendable {
  /// A rate and the burst above it; `perSecond` 0 turns the limit off.
  package struct Limit: Sendable, Hashable {
    var perSecond: Double
    var burst: Double

    static let off = Limit(perSecond: 0, burst: 0)
    var isOff: Bool { perSecond <= 0 }

    /// `N/s`, `N/min` or `N/h`, optionally `,burst=M` (default burst: one second's worth,
    /// at least 1); `off` turns it off.
    init?(_ text: String) {
      if text == "off" || text == "0" {
        self = .off
        return
      }
      let parts = text.split(separator: ",")
      let rate = parts[0].split(separator: "/")
      guard rate.count == 2, let count = Double(rate[0]), count > 0 else { return nil }
      let seconds: Double
      switch rate[1] {
      case "s": seconds = 1
      case "min": seconds = 60
      case "h": seconds = 3_600
      default: return nil
      }
      perSecond = count / seconds
      burst = max(1, perSecond)
      for option in parts.dropFirst() {
        let pair = option.split(separator: "=")
        guard pair.count == 2, pair[0] == "burst", let value = Double(pair[1]), value >= 1 else { return nil }
        burst = value
      }
    }

    init(perSecond: Double, burst: Double) {
      self.perSecond = perSecond
      self.burst = burst
    }
  }

  private struct Bucket {
    var tokens: Double
    var updated: Double
  }

  private final class Shard: Sendable {
    let buckets = Mutex<[String: Bucket]>([:])
  }

  private static let shardCount = 16
  private let shards: [Shard]
  private let maxPerShard: Int
  private let time: any TimeSource

  /// Buckets earn tokens by `time`'s elapsed seconds (a monotonic scale).
  package init(maxKeys: Int = 100_000, time: any TimeSource) {
    shards = (0..<Self.shardCount).map { _ in Shard() }
    maxPerShard = max(1, maxKeys / Self.shardCount)
    self.time = time
  }

  /// `clock` gives seconds on a monotonic scale (tests pass their own).
  package convenience init(maxKeys: Int = 100_000, clock: @escaping @Sendable () -> Double = MonotonicClock.seconds) {
    self.init(maxKeys: maxKeys, time: ElapsedClock(seconds: clock))
  }

  /// A clock that only counts elapsed seconds.
  private struct ElapsedClock: TimeSource {
    let seconds: @Sendable () -> Double
    func now() -> Date { Date() }
    func elapsedSeconds() -> Double { seconds() }
  }

  /// Takes one token from `key`'s bucket; nil when allowed, else the seconds until a token
  /// is there (for `Retry-After`).
  package func take(_ key: String, _ limit: Limit) -> Double? {
    guard !limit.isOff else { return nil }
    let now = time.elapsedSeconds()
    var hasher = Hasher()
    hasher.combine(key)
    let shard = shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.shardCount))]
    return shard.buckets.withLock { buckets -> Double? in
      var bucket = buckets[key] ?? Bucket(tokens: limit.burst, updated: now)
      bucket.tokens = min(limit.burst, bucket.tokens + max(0, now - bucket.updated) * limit.perSecond)
      bucket.updated = now
      if buckets.count >= maxPerShard && buckets[key] == nil {
        // Full buckets are as good as new ones: forget them first.
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * limit.perSecond < limit.burst }
        if buckets.count >= maxPerShard { buckets.removeAll(keepingCapacity: true) }
      }
      guard bucket.tokens >= 1 else {
        buckets[key] = bucket
        return (1 - bucket.tokens) / limit.perSecond
      }
      bucket.tokens -= 1
      buckets[key] = bucket
      return nil
    }
  }

}

/// The server's limits; `tollgate serve --rate-limit-…` and docs/operations.md.
public struct RateLimits: Sendable, Hashable {
  /// Every request from one client address (except `/health` and `/metrics`).
  public var perAddress: String = "200/s,burst=2000"
  /// Apple Ads token submissions through one public key (they spend the app's Apple quota).
  public var tokensPerKey: String = "50/s,burst=500"
  /// Apple Ads token submissions for one profile.
  public var tokensPerProfile: String = "10/h,burst=10"
  /// Admin requests through one secret key.
  public var adminPerKey: String = "20/s,burst=200"
  /// Proxies whose `X-Forwarded-For` names the client (their own address is not limited).
  public var trustedProxies: Set<String> = []

  /// The defaults.
  public init() {}

  /// No limits (benchmarks).
  public static let off: RateLimits = {
    var limits = RateLimits()
    limits.perAddress = "off"
    limits.tokensPerKey = "off"
    limits.tokensPerProfile = "off"
    limits.adminPerKey = "off"
    return limits
  }()

  /// Each limit parsed, or the name of the first one that is not a limit.
  package func parsed() throws -> ParsedRateLimits {
    func parse(_ text: String, _ name: String) throws -> RateLimiter.Limit {
      guard let limit = RateLimiter.Limit(text) else { throw RateLimitError(name: name, value: text) }
      return limit
    }
    return ParsedRateLimits(
      address: try parse(perAddress, "address"), tokensPerKey: try parse(tokensPerKey, "tokens-per-key"),
      tokensPerProfile: try parse(tokensPerProfile, "tokens-per-profile"),
      admin: try parse(adminPerKey, "admin-per-key"),
      trustedProxies: trustedProxies)
  }

  /// Whether every limit parses (`tollgate serve` checks before starting).
  public func validate() throws { _ = try parsed() }

  /// The defaults, parsed (they always parse).
  package var parsedDefaults: ParsedRateLimits { (try? RateLimits().parsed()) ?? .off }
}

/// The limits as buckets use them.
package struct ParsedRateLimits: Sendable {
  var address: RateLimiter.Limit
  package var tokensPerKey: RateLimiter.Limit
  package var tokensPerProfile: RateLimiter.Limit
  var admin: RateLimiter.Limit
  package var trustedProxies: Set<String>

  static let off = ParsedRateLimits(
    address: .off, tokensPerKey: .off, tokensPerProfile: .off, admin: .off, trustedProxies: [])
}

/// A limit that does not parse.
public struct RateLimitError: Error, CustomStringConvertible {
  /// Which limit.
  public let name: String
  /// What was given.
  public let value: String
  public var description: String {
    "rate limit \(name): \(value) is not N/s, N/min or N/h (optionally ,burst=M) or off"
  }
}

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
    // A limit turned off makes no bucket key (string building on every request).
    if !limits.address.isOff, let wait = limiter.take("address " + clientAddress(request), limits.address) {
      throw Self.rateLimited(wait, "Too many requests from this address")
    }
    if !limits.admin.isOff, route.hasPrefix("/v1/admin"), let key = request.header("authorization"),
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
