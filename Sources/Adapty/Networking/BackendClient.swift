import Foundation
import TollgateAPI

/// The Tollgate SDK routes as typed calls; maps every failure to `AdaptyError`.
struct BackendClient: Sendable {
  let transport: any HTTPTransport
  let apiKey: String

  /// An HTTP failure with the server's error code kept, so callers can react to it.
  struct Failure: Error, Sendable {
    let error: AdaptyError
    /// The server's `error.code` as sent (kept even when this SDK does not know it).
    let serverCode: String?
    let status: Int?
    /// The server's code, when it is one this SDK knows.
    var code: APIErrorCode? { serverCode.flatMap(APIErrorCode.init(rawValue:)) }
    /// The problems a 422 listed, with their JSON paths.
    var details: [APIError.Detail] = []
  }

  func createProfile(_ body: CreateProfileRequest) async throws(Failure) -> ProfilePayload {
    try await call(.createProfile, body: WireCoding.encode(body)).decoded()
  }

  /// nil when the server answered 304 for `etag`.
  func profile(id: String, etag: String?) async throws(Failure) -> (ProfilePayload, etag: String?)? {
    let response = try await call(
      .profile, id, headers: etag.map { ["If-None-Match": $0] } ?? [:])
    if response.status == 304 { return nil }
    return (try response.decoded(), response.header("ETag"))
  }

  /// Long-polls the profile until Apple Ads attribution is settled or `timeoutMs` passes.
  func profileAwaitingAttribution(id: String, timeoutMs: Int) async throws(Failure) -> ProfilePayload {
    try await call(
      .profile, id, query: ["wait_for": "apple_ads", "timeout_ms": String(timeoutMs)]
    ).decoded()
  }

  /// Hands the AdServices token over; `pending` when the server is still resolving it.
  func sendAppleAdsToken(profileId: String, token: String) async throws(Failure) -> (ProfilePayload, pending: Bool) {
    let response = try await call(
      .appleAdsAttribution, profileId, body: WireCoding.encode(AppleAdsTokenRequest(token: token)))
    if response.status == 202 {
      let pending: AttributionPendingResponse = try response.decoded()
      return (pending.profile, true)
    }
    return (try response.decoded(), false)
  }

  func updateProfile(id: String, _ body: UpdateProfileRequest) async throws(Failure) -> ProfilePayload {
    try await call(.updateProfile, id, body: WireCoding.encode(body)).decoded()
  }

  func flow(placementId: String, profileId: String, locale: String?, waitForAppleAdsMs: Int? = nil)
    async throws(Failure) -> PlacementFlowResponse
  {
    var query = ["profile_id": profileId]
    query["locale"] = locale
    if let waitForAppleAdsMs {
      query["wait_for"] = "apple_ads"
      query["timeout_ms"] = String(waitForAppleAdsMs)
    }
    return try await call(.placementFlow, placementId, query: query).decoded()
  }

  /// nil when the server answered 304 for `etag`.
  func defaultFlow(placementId: String, locale: String?, etag: String?) async throws(Failure)
    -> (PlacementFlowResponse, etag: String?)?
  {
    var query: [String: String] = [:]
    query["locale"] = locale
    let response = try await call(
      .placementDefault, placementId, query: query,
      headers: etag.map { ["If-None-Match": $0] } ?? [:])
    if response.status == 304 { return nil }
    return (try response.decoded(), response.header("ETag"))
  }

  /// Hands a StoreKit transaction to the server; the profile with its access levels comes back.
  func sendTransaction(profileId: String, _ body: TransactionRequest) async throws(Failure) -> ProfilePayload {
    try await call(.transactions, profileId, body: WireCoding.encode(body)).decoded()
  }

  func sendEvents(_ batch: EventBatchRequest) async throws(Failure) -> EventBatchResponse {
    try await call(.events, body: WireCoding.encode(batch)).decoded()
  }

  /// The bytes of an uploaded image.
  func asset(sha256: String) async throws(Failure) -> Data {
    try await call(.asset, sha256).body
  }

  private func call(
    _ route: SDKRoute, _ parameters: String..., query: [String: String] = [:], headers: [String: String] = [:],
    body: Data? = nil
  ) async throws(Failure) -> HTTPResponse {
    let method = route.method
    let path = route.path(with: parameters)
    var request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body)
    request.headers["Authorization"] = "Api-Key \(apiKey)"
    request.headers["Accept"] = "application/json"
    request.headers["Tollgate-SDK-Version"] = sdkVersion
    if body != nil { request.headers["Content-Type"] = "application/json" }
    Log.verbose("→ \(method) \(path)")
    let response: HTTPResponse
    do {
      response = try await transport.send(request)
    } catch is CancellationError {
      throw Failure(error: AdaptyError(.networkFailed, "The request was cancelled."), serverCode: nil, status: nil)
    } catch {
      throw Failure(
        error: AdaptyError(
          .networkFailed, "Could not reach the Tollgate server (\(error)). Check the connection and backendBaseUrl."),
        serverCode: nil, status: nil)
    }
    Log.verbose("← \(response.status) \(method) \(path)")
    switch response.status {
    case 200..<300, 304: return response
    default: throw Self.failure(for: response)
    }
  }

  static func failure(for response: HTTPResponse) -> Failure {
    let body = try? WireCoding.decoder.decode(APIErrorBody.self, from: response.body)
    let detail = body.map { "\($0.error.code): \($0.error.message)" } ?? "HTTP \(response.status)"
    let error: AdaptyError
    switch response.status {
    case 401, 403:
      error = AdaptyError(
        .notActivated, "The server rejected the API key (\(detail)). Use the app's public key (tg_pub_…).")
    case 429, 500...:
      error = AdaptyError(.serverError, "The server failed (\(detail)); try again later.")
    default:
      error = AdaptyError(.badRequest, "The server refused the request (\(detail)).")
    }
    return Failure(
      error: error, serverCode: body?.error.code, status: response.status, details: body?.error.details ?? [])
  }
}

extension HTTPResponse {
  fileprivate func decoded<T: Decodable>() throws(BackendClient.Failure) -> T {
    do {
      return try WireCoding.decoder.decode(T.self, from: body)
    } catch {
      throw BackendClient.Failure(
        error: AdaptyError(.decodingFailed, "The server's answer could not be decoded as \(T.self): \(error)"),
        serverCode: nil, status: status)
    }
  }
}
