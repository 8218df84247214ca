import Foundation
import Synchronization
import TollgateAPI

@testable import Adapty

/// A scripted server: each request goes to `respond`, which a test sets per route.
/// `hold()` makes requests wait until `release()`, to test what happens while the network
/// is slow.
final class FakeTransport: HTTPTransport {
  typealias Responder = @Sendable (HTTPRequest) throws -> HTTPResponse

  private struct State {
    var responder: Responder
    var requests: [HTTPRequest] = []
    var holding = false
    var held: [CheckedContinuation<Void, Never>] = []
  }

  private let state: Mutex<State>
  private let condition = Condition()

  init(_ responder: @escaping Responder = { _ in HTTPResponse(status: 503) }) {
    state = Mutex(State(responder: responder))
  }

  func respond(_ responder: @escaping Responder) { state.withLock { $0.responder = responder } }

  var requests: [HTTPRequest] { state.withLock { $0.requests } }

  func requests(to path: String) -> [HTTPRequest] { requests.filter { $0.path == path } }

  func hold() { state.withLock { $0.holding = true } }

  func release() {
    let waiting = state.withLock { state in
      state.holding = false
      defer { state.held = [] }
      return state.held
    }
    for continuation in waiting { continuation.resume() }
  }

  /// Suspends until at least `count` requests are held.
  func held(atLeast count: Int) async {
    await condition.wait { self.state.withLock({ $0.held.count }) >= count }
  }

  /// Suspends until at least `count` requests to `path` were received.
  func received(atLeast count: Int, to path: String) async {
    await condition.wait { self.requests(to: path).count >= count }
  }

  func send(_ request: HTTPRequest) async throws -> HTTPResponse {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let wait = state.withLock { state -> Bool in
        state.requests.append(request)
        if state.holding { state.held.append(continuation) }
        return state.holding
      }
      if !wait { continuation.resume() }
      condition.changed()
    }
    try Task.checkCancellation()
    return try state.withLock { $0.responder }(request)
  }
}

/// JSON answers in the server's wire format.
enum Wire {
  static func json<T: Encodable>(_ value: T, status: Int = 200, etag: String? = nil) -> HTTPResponse {
    HTTPResponse(status: status, headers: etag.map { ["ETag": $0] } ?? [:], body: WireCoding.encode(value))
  }

  static func error(_ status: Int, _ code: String) -> HTTPResponse {
    json(APIErrorBody(error: APIError(code: code, message: "scripted \(code)")), status: status)
  }

  static func profile(_ id: String, version: Int64 = 1, sources: [String] = [], attributes: [String: JSONValue] = [:])
    -> ProfilePayload
  {
    ProfilePayload(
      id: id, version: version, customerUserId: nil, install: InstallMeta(), customAttributes: attributes,
      appliedAttributionSources: sources, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z")
  }

  static func flow(_ placement: String, flow: String, audience: String = "All Users", revision: Int64 = 1)
    -> PlacementFlowResponse
  {
    PlacementFlowResponse(
      placement: PlacementInfo(
        id: placement, revision: revision, audienceId: audience, audienceName: audience, abTestName: nil),
      flow: FlowPayload(
        id: flow, name: flow.capitalized, variationId: "\(placement):\(audience):\(flow)", products: ["p1"],
        remoteConfig: RemoteConfigPayload(locale: "en", data: .object(["title": .string(flow)]))))
  }

  /// The id the SDK put in its create-profile request.
  static func createdProfileId(_ request: HTTPRequest) -> String? {
    request.body.flatMap { try? WireCoding.decoder.decode(CreateProfileRequest.self, from: $0) }?.profileId
  }
}
