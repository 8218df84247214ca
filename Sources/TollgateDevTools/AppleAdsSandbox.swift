import Dispatch
import Foundation
import Synchronization
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// A local stand-in for Apple's attribution API, for tests, the demo and benchmarks — never
/// for production. It speaks Apple's protocol (`POST` a raw token as `text/plain`; 200 with
/// a payload, 404 not ready, 400 invalid, 500 failure) and its behaviour is scripted by the
/// token itself:
///
/// `sbx|campaign=542370539|delay_ms=1000|not_found=2|fail=1|status=400|attribution=false|dev`
///
/// - `campaign=N`: the campaign id (other ids derive from it); default 542370539.
/// - `ad_group=N`, `keyword=N`: those ids instead; `keyword=none` for a search-match install.
/// - `delay_ms=N`: answer after N ms (the connection is suspended, no thread waits).
/// - `not_found=K`: answer 404 to the first K calls for this token, then 200.
/// - `fail=K`: answer 500 to the first K calls, then go on.
/// - `status=400` (or any status): always answer with it.
/// - `attribution=false`: 200 with `{"attribution": false}`.
/// - `dev`: developer-mode ids (1234567890).
///
/// Tokens that do not start with `sbx|` get 400, as a real but bogus token would.
public final class AppleAdsSandbox: Sendable {
  /// Calls and successful answers per token.
  public struct Tally: Sendable, Hashable {
    /// Requests received for the token.
    public var calls = 0
    /// 200 answers given for it.
    public var successes = 0

    /// A tally.
    public init(calls: Int = 0, successes: Int = 0) {
      self.calls = calls
      self.successes = successes
    }
  }

  private let tallies = Mutex<[String: Tally]>([:])
  private let listener = StandInListener()

  /// A stand-in; `start` makes it listen.
  public init() {}

  /// Listens on `host:port` (0 picks a port); returns the URL to give `--apple-ads-url`.
  public func start(host: String = "127.0.0.1", port: UInt16 = 0) throws -> URL {
    let bound = try listener.start(host: host, port: port) { [self] request in answer(request) }
    return URL(string: "http://\(host):\(bound)/api/v1/")!
  }

  /// Stops listening.
  public func stop() { listener.stop() }

  /// What happened to a token so far.
  public func tally(_ token: String) -> Tally { tallies.withLock { $0[token] ?? Tally() } }

  /// Answers one request as Apple would under the token's script.
  public func answer(_ request: Request) -> Response {
    guard request.method == "POST" else { return Response(status: 405) }
    guard request.header("content-type")?.lowercased().hasPrefix("text/plain") == true else {
      return Response(status: 400, body: Data("Content-Type must be text/plain".utf8))
    }
    let token = String(decoding: request.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let call = tallies.withLock { tallies -> Int in
      tallies[token, default: Tally()].calls += 1
      return tallies[token]!.calls
    }
    let script = Self.script(token)
    let response = respond(to: script, call: call, token: token)
    guard let delay = script?["delay_ms"].flatMap(Int.init), delay > 0 else { return response }
    let deferred = DeferredResponse()
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(delay)) { deferred.complete(response) }
    return .deferred(deferred)
  }

  private func respond(to script: [String: String]?, call: Int, token: String) -> Response {
    guard let script else { return Response(status: 400) }
    if let status = script["status"].flatMap(Int.init) { return Response(status: status) }
    if let failures = script["fail"].flatMap(Int.init), call <= failures { return Response(status: 500) }
    let notFound = script["not_found"].flatMap(Int.init) ?? 0
    if call - (script["fail"].flatMap(Int.init) ?? 0) <= notFound { return Response(status: 404) }
    tallies.withLock { $0[token, default: Tally()].successes += 1 }
    if script["attribution"] == "false" { return .json(AppleAdsPayload(attribution: false)) }
    let dev = script["dev"] != nil
    let campaign = dev ? 1_234_567_890 : (script["campaign"].flatMap(Int64.init) ?? 542_370_539)
    let payload = AppleAdsPayload(
      attribution: true, orgId: dev ? 1_234_567_890 : 40_669_820, campaignId: campaign,
      adGroupId: dev ? 1_234_567_890 : (script["ad_group"].flatMap(Int64.init) ?? campaign + 1),
      keywordId: dev
        ? 12_323_222 : script["keyword"] == "none" ? nil : (script["keyword"].flatMap(Int64.init) ?? campaign + 2),
      adId: dev ? 1_234_567_890 : campaign + 3, countryOrRegion: "US", conversionType: "Download",
      claimType: "Click", clickDate: "2024-10-08T17:17Z")
    var response = Response.json(bytes: (try? JSONEncoder().encode(payload)) ?? Data())
    response.headers = [("Content-Type", "application/json")]
    return response
  }

  /// `sbx|a=1|dev` → ["a": "1", "dev": ""]; nil for tokens that are not scripts.
  static func script(_ token: String) -> [String: String]? {
    let parts = token.split(separator: "|").map(String.init)
    guard parts.first == "sbx" else { return nil }
    var script: [String: String] = [:]
    for part in parts.dropFirst() {
      let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
      script[pair[0]] = pair.count == 2 ? pair[1] : ""
    }
    return script
  }
}
