import Foundation
import Synchronization

/// Request counters and latency histograms, rendered in Prometheus text format.
public final class Metrics: Sendable {
  /// Histogram bucket upper bounds, in seconds.
  static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

  private struct Key: Hashable {
    let route: String
    let method: String
    let status: Int
  }

  private struct Histogram {
    var buckets = [Int](repeating: 0, count: Metrics.bounds.count)
    var count = 0
    var sum = 0.0
  }

  private struct State {
    var requests: [Key: Int] = [:]
    var latency: [String: Histogram] = [:]
  }

  private let state = Mutex(State())

  /// Creates empty metrics.
  public init() {}

  /// Records one answered request. `route` is the route pattern, so labels stay bounded.
  public func record(route: String, method: String, status: Int, seconds: Double) {
    state.withLock { state in
      state.requests[Key(route: route, method: method, status: status), default: 0] += 1
      // Mutated in place: a copy taken out and stored back would copy the bucket array on
      // every request.
      Self.add(seconds, to: &state.latency[route, default: Histogram()])
    }
  }

  private static func add(_ seconds: Double, to histogram: inout Histogram) {
    for (index, bound) in bounds.enumerated() where seconds <= bound {
      histogram.buckets[index] += 1
    }
    histogram.count += 1
    histogram.sum += seconds
  }

  /// Requests answered so far by status class (`2xx` … `5xx`), all routes together.
  public var requestsByClass: [String: Int] {
    state.withLock { state in
      var classes: [String: Int] = [:]
      for (key, count) in state.requests { classes["\(key.status / 100)xx", default: 0] += count }
      return classes
    }
  }

  /// The Prometheus text exposition (version 0.0.4).
  public func render() -> String {
    let snapshot = state.withLock { $0 }
    var out = "# HELP tollgate_http_requests_total HTTP requests answered, by route pattern and status.\n"
    out += "# TYPE tollgate_http_requests_total counter\n"
    for (key, count) in snapshot.requests.sorted(by: {
      ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
    }) {
      out +=
        "tollgate_http_requests_total{route=\"\(key.route)\",method=\"\(key.method)\",status=\"\(key.status)\"} \(count)\n"
    }
    out += "# HELP tollgate_http_request_duration_seconds Time from request received to response queued.\n"
    out += "# TYPE tollgate_http_request_duration_seconds histogram\n"
    for (route, histogram) in snapshot.latency.sorted(by: { $0.key < $1.key }) {
      for (index, bound) in Self.bounds.enumerated() {
        out +=
          "tollgate_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(histogram.buckets[index])\n"
      }
      out += "tollgate_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.count)\n"
      out += "tollgate_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)\n"
      out += "tollgate_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.count)\n"
    }
    return out
  }
}
