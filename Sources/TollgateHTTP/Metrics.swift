import Foundation
import Synchronization
import TollgateSupport

/// Request counters and latency histograms, rendered in Prometheus text format.
///
/// Recording takes no lock and shares no counter between threads: every thread that records
/// has counters of its own (found through thread-local storage), which only it adds to, and a
/// scrape sums them. A lock is taken only the first time a thread meets a series (a route,
/// method and status, or a route's histogram) and at scrape.
public final class Metrics: @unchecked Sendable {
  /// Histogram bucket upper bounds, in seconds.
  static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
  /// Series each thread counts at most; label values are route patterns, so this is plenty.
  static let seriesCapacity = 1_024
  /// Routes with a histogram at most.
  static let routeCapacity = 256
  /// Per route: the buckets, the count, the sum in nanoseconds.
  private static let histogramWidth = bounds.count + 2

  struct Key: Hashable {
    let route: String
    let method: String
    let status: Int
  }

  /// One thread's counters. `slots` is read and written by that thread only;
  /// the atomics are read by the scraper (hence unchecked: the compiler cannot see the rule).
  private final class ThreadCounters: @unchecked Sendable {
    /// Each series this thread met, with its slot and its route's histogram: one lookup per
    /// request.
    var slots: [Key: (series: Int, route: Int)] = [:]
    let counts: UnsafeMutablePointer<Atomic<Int>>
    let histograms: UnsafeMutablePointer<Atomic<Int>>

    init() {
      counts = .allocate(capacity: Metrics.seriesCapacity)
      for index in 0..<Metrics.seriesCapacity { (counts + index).initialize(to: Atomic(0)) }
      let width = Metrics.routeCapacity * Metrics.histogramWidth
      histograms = .allocate(capacity: width)
      for index in 0..<width { (histograms + index).initialize(to: Atomic(0)) }
    }

    deinit {
      counts.deinitialize(count: Metrics.seriesCapacity)
      counts.deallocate()
      histograms.deinitialize(count: Metrics.routeCapacity * Metrics.histogramWidth)
      histograms.deallocate()
    }
  }

  /// Which series and routes exist (in the order they were first met), and every thread's
  /// counters (kept here for as long as the metrics live).
  private struct Registry {
    var series: [Key: Int] = [:]
    var keys: [Key] = []
    var routes: [String: Int] = [:]
    var routeNames: [String] = []
    var threads: [ThreadCounters] = []
  }

  private let registry = Mutex(Registry())
  private let threadKey: pthread_key_t
  /// False if the process ran out of thread-local keys: then every record meets its series
  /// through the registry's lock (right, only slower).
  private let hasThreadKey: Bool

  /// Counters shared by every thread, under a lock, when there is no thread-local key.
  private let fallback: Mutex<ThreadCounters>

  /// Creates empty metrics.
  public init() {
    var key = pthread_key_t()
    hasThreadKey = pthread_key_create(&key, nil) == 0
    threadKey = key
    let shared = ThreadCounters()
    fallback = Mutex(shared)
    registry.withLock { $0.threads.append(shared) }
  }

  deinit {
    if hasThreadKey { pthread_key_delete(threadKey) }
  }

  /// Records one answered request. `route` is the route pattern, so labels stay bounded.
  public func record(route: String, method: String, status: Int, seconds: Double) {
    guard hasThreadKey else {
      return fallback.withLock { add(route: route, method: method, status: status, seconds: seconds, to: $0) }
    }
    add(route: route, method: method, status: status, seconds: seconds, to: current())
  }

  private func add(route: String, method: String, status: Int, seconds: Double, to counters: ThreadCounters) {
    let key = Key(route: route, method: method, status: status)
    let series: Int
    let routeIndex: Int
    if let known = counters.slots[key] {
      (series, routeIndex) = known
    } else {
      // First sight on this thread: the registry's lock, once per series and thread.
      guard let newSeries = register(key, \.series, \.keys, Self.seriesCapacity),
        let newRoute = register(route, \.routes, \.routeNames, Self.routeCapacity)
      else { return }
      (series, routeIndex) = (newSeries, newRoute)
      counters.slots[key] = (series, routeIndex)
    }
    counters.counts[series].wrappingAdd(1, ordering: .relaxed)
    let histogram = counters.histograms + routeIndex * Self.histogramWidth
    // Cumulative buckets: the first bound that holds it and every one after.
    if let first = Self.bounds.firstIndex(where: { seconds <= $0 }) {
      for index in first..<Self.bounds.count { histogram[index].wrappingAdd(1, ordering: .relaxed) }
    }
    histogram[Self.bounds.count].wrappingAdd(1, ordering: .relaxed)
    histogram[Self.bounds.count + 1].wrappingAdd(Int((seconds * 1e9).rounded()), ordering: .relaxed)
  }

  /// This thread's counters, made on its first request.
  private func current() -> ThreadCounters {
    if let stored = pthread_getspecific(threadKey) {
      return Unmanaged<ThreadCounters>.fromOpaque(stored).takeUnretainedValue()
    }
    let counters = ThreadCounters()
    registry.withLock { $0.threads.append(counters) }
    pthread_setspecific(threadKey, Unmanaged.passUnretained(counters).toOpaque())
    return counters
  }

  /// The index of a series (or route) this thread has not met yet, registering it on first
  /// sight (nil: no room left).
  private func register<Name: Hashable>(
    _ name: Name, _ index: WritableKeyPath<Registry, [Name: Int]>, _ order: WritableKeyPath<Registry, [Name]>,
    _ capacity: Int
  ) -> Int? {
    registry.withLock { registry -> Int? in
      if let known = registry[keyPath: index][name] { return known }
      guard registry[keyPath: order].count < capacity else { return nil }
      registry[keyPath: order].append(name)
      registry[keyPath: index][name] = registry[keyPath: order].count - 1
      return registry[keyPath: order].count - 1
    }
  }

  /// The counters summed over every thread.
  private func snapshot() -> (requests: [(Key, Int)], latency: [(String, [Int])]) {
    registry.withLock { registry in
      let requests = registry.keys.enumerated().map { index, key in
        (key, registry.threads.reduce(0) { $0 + $1.counts[index].load(ordering: .relaxed) })
      }
      let latency = registry.routeNames.enumerated().map { route, name in
        (
          name,
          (0..<Self.histogramWidth).map { cell in
            registry.threads.reduce(0) {
              $0 + $1.histograms[route * Self.histogramWidth + cell].load(ordering: .relaxed)
            }
          }
        )
      }
      return (requests, latency)
    }
  }

  /// Requests answered so far by status class (`2xx` … `5xx`), all routes together.
  public var requestsByClass: [String: Int] {
    var classes: [String: Int] = [:]
    for (key, count) in snapshot().requests { classes["\(key.status / 100)xx", default: 0] += count }
    return classes
  }

  /// The Prometheus text exposition (version 0.0.4).
  public func render() -> String {
    let snapshot = snapshot()
    var out = "# HELP tollgate_http_requests_total HTTP requests answered, by route pattern and status.\n"
    out += "# TYPE tollgate_http_requests_total counter\n"
    for (key, count) in snapshot.requests.sorted(by: {
      ($0.0.route, $0.0.method, $0.0.status) < ($1.0.route, $1.0.method, $1.0.status)
    }) {
      out +=
        "tollgate_http_requests_total{route=\"\(key.route)\",method=\"\(key.method)\",status=\"\(key.status)\"} \(count)\n"
    }
    out += "# HELP tollgate_http_request_duration_seconds Time from request received to response queued.\n"
    out += "# TYPE tollgate_http_request_duration_seconds histogram\n"
    for (route, cells) in snapshot.latency.sorted(by: { $0.0 < $1.0 }) {
      for (index, bound) in Self.bounds.enumerated() {
        out += "tollgate_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cells[index])\n"
      }
      let count = cells[Self.bounds.count]
      out += "tollgate_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(count)\n"
      out +=
        "tollgate_http_request_duration_seconds_sum{route=\"\(route)\"} \(Double(cells[Self.bounds.count + 1]) / 1e9)\n"
      out += "tollgate_http_request_duration_seconds_count{route=\"\(route)\"} \(count)\n"
    }
    return out
  }
}

extension Metrics {
  /// `answer`'s response to `request`, timed and counted by route pattern, method and status
  /// (`/metrics`) and logged at debug level; a long poll is counted when it is finally answered.
  package func measure(_ request: Request, logger: Logger, _ answer: (Request) -> Response) -> Response {
    let started = ContinuousClock.now
    let response = answer(request)
    let route = response.route ?? "unmatched"
    guard let deferred = response.deferred else {
      // Answered now: no closure (and no copy of the request) to keep for later.
      record(response.status, route, request.method, request.path, since: started, logger)
      return response
    }
    let (method, path) = (request.method, request.path)
    deferred.onComplete { [self] answered in
      record(answered.status, route, method, path, since: started, logger)
    }
    return response
  }

  private func record(
    _ status: Int, _ route: String, _ method: String, _ path: String, since started: ContinuousClock.Instant,
    _ logger: Logger
  ) {
    let elapsed = started.duration(to: .now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    record(route: route, method: method, status: status, seconds: seconds)
    // A line per request only at debug level: other levels skip making it.
    if logger.level == .debug { logger.debug("\(method) \(path) → \(status)") }
  }
}
