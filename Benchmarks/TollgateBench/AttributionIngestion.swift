import Foundation
import TollgateAPI

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Tokens/s accepted (stored in the queue: `Prefer: respond-async`, no wait for Apple) and
/// applied by a running server whose Apple Ads stand-in answers at once; counts what was
/// applied so nothing lost goes unnoticed.
enum AttributionIngestion {
  static func run(base: String, key: String, tokens: Int) async throws {
    let session = URLSession(configuration: .ephemeral)
    @Sendable func send(_ method: String, _ path: String, _ body: Data?) async throws -> (Int, Data) {
      var request = URLRequest(url: URL(string: base + path)!)
      request.httpMethod = method
      request.setValue("Api-Key \(key)", forHTTPHeaderField: "Authorization")
      request.setValue("respond-async", forHTTPHeaderField: "Prefer")
      if let body {
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      }
      let (data, response) = try await session.data(for: request)
      return ((response as! HTTPURLResponse).statusCode, data)
    }
    let ids = (0..<tokens).map { _ in UUID().uuidString.lowercased() }
    try await forEachConcurrently(ids, width: 32) { id in
      _ = try await send("POST", "/v1/sdk/profiles", WireCoding.encode(CreateProfileRequest(profileId: id)))
    }
    let before = try await applied(send)
    let start = Date()
    try await forEachConcurrently(Array(ids.enumerated()), width: 32) { index, id in
      let body = WireCoding.encode(AppleAdsTokenRequest(token: "sbx|campaign=\(index % 7)|n=\(id)"))
      let (status, _) = try await send("POST", RoutePaths.appleAdsAttribution(id), body)
      guard status == 202 || status == 200 else { throw Refused(description: "token \(index) answered HTTP \(status)") }
    }
    let accepted = Date().timeIntervalSince(start)
    var count = try await applied(send) - before
    let deadline = Date().addingTimeInterval(60)
    while count < tokens && Date() < deadline {
      try await Task.sleep(nanoseconds: 50_000_000)
      count = try await applied(send) - before
    }
    let total = Date().timeIntervalSince(start)
    emit(
      "attribution tokens=\(tokens) accepted_per_s=\(Int(Double(tokens) / accepted)) "
        + "applied_per_s=\(Int(Double(count) / total)) applied=\(count) lost=\(tokens - count)")
  }

  static func applied(_ send: (String, String, Data?) async throws -> (Int, Data)) async throws -> Int {
    let (_, data) = try await send("GET", "/metrics", nil)
    let text = String(decoding: data, as: UTF8.self)
    let line = text.split(separator: "\n").first {
      $0.hasPrefix("tollgate_attribution_outcomes_total{outcome=\"applied\"}")
    }
    return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
  }

  static func forEachConcurrently<T: Sendable>(
    _ items: [T], width: Int, _ body: @escaping @Sendable (T) async throws -> Void
  ) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      var iterator = items.makeIterator()
      for _ in 0..<width {
        guard let item = iterator.next() else { break }
        group.addTask { try await body(item) }
      }
      while try await group.next() != nil {
        if let item = iterator.next() { group.addTask { try await body(item) } }
      }
    }
  }
}

/// A token the server did not take: the figures would not mean what they say.
struct Refused: Error, CustomStringConvertible {
  let description: String
}
