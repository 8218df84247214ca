import Foundation
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// One scripted sequence of SDK and admin calls, every answer (status, headers that carry
/// meaning, body) compared with the recording in `api-sequence.golden`: moving code around
/// must not move a byte of the API. Keys, secrets and random ids are normalized; the clock
/// is the test's, so times are fixed. `TOLLGATE_RECORD_GOLDEN=1` writes the recording anew.
@Suite("API golden sequence")
struct APIGoldenTests {
  static let golden = repositoryRoot.appendingPathComponent("Tests/TollgateServerTests/Golden/api-sequence.golden")
  static let headers = ["Content-Type", "ETag", "Cache-Control", "Retry-After", "Allow", "Location"]

  @Test("a scripted SDK and admin session answers byte for byte as recorded")
  func sequence() async throws {
    let signer = try StoreKitSigner(appleNames: false)
    let server = try TestServer(appStoreVerifier: try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8)))
    defer { server.stop() }
    var recorder = Recorder(server: server)

    let config = try String(
      contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json"), encoding: .utf8)
    try await recorder.admin("GET", "/v1/admin/config")
    try await recorder.admin("PUT", "/v1/admin/config", json: config)
    try await recorder.admin("PUT", "/v1/admin/config", json: #"{"flows":[{"id":"a"}],"placements":[{"id":"p"}]}"#)
    try await recorder.admin("PUT", "/v1/admin/config", json: "{flows")

    let profile = "6f9619ff-8b86-d011-b42d-00c04fc964ff"
    let install =
      #"{"app_version":"2.4.1","os_version":"17.5","device_model":"iPhone15,2","locale":"fr-FR","store_country":"FRA","sdk_version":"3.4.0"}"#
    try await recorder.send("GET", "/health")
    try await recorder.sdk(
      "POST", "/v1/sdk/profiles",
      json: #"{"profile_id":"\#(profile)","customer_user_id":"cust-1","install":\#(install)}"#)
    try await recorder.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"\#(profile)"}"#)
    try await recorder.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"nope"}"#)
    try await recorder.sdk("POST", "/v1/sdk/profiles", json: #"{"profile_id":"#)
    try await recorder.sdk("GET", "/v1/sdk/profiles/\(profile)")
    try await recorder.sdk("GET", "/v1/sdk/profiles/\(profile)", headers: ["If-None-Match": "\"v1\""])
    try await recorder.sdk("GET", "/v1/sdk/profiles/00000000-0000-0000-0000-000000000000")
    try await recorder.sdk(
      "PATCH", "/v1/sdk/profiles/\(profile)", json: #"{"custom_attributes":{"plan":"gold","level":3}}"#)
    try await recorder.sdk("PATCH", "/v1/sdk/profiles/\(profile)", json: #"{"custom_attributes":{"bad key":1}}"#)

    try await recorder.sdk("GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(profile)&locale=fr")
    try await recorder.sdk("GET", "/v1/sdk/placements/onboarding/default?locale=en")
    try await recorder.sdk("GET", "/v1/sdk/placements/nowhere/flow?profile_id=\(profile)")
    try await recorder.sdk("GET", "/v1/sdk/placements/onboarding/flow")
    try await recorder.sdk("GET", "/v1/sdk/fallback")

    try await recorder.sdk(
      "POST", "/v1/sdk/profiles/\(profile)/attribution/apple-ads", json: #"{"token":"sbx|campaign=542370539"}"#)
    await server.attributionPass()
    try await recorder.sdk("GET", "/v1/sdk/profiles/\(profile)")
    try await recorder.sdk(
      "GET", "/v1/sdk/placements/onboarding/flow?profile_id=\(profile)&locale=en&wait_for=apple_ads&timeout_ms=0")

    let shown =
      #"{"type":"flow_shown","profile_id":"\#(profile)","placement_id":"onboarding","variation_id":"onboarding:default:standard""#
    try await recorder.sdk("POST", "/v1/sdk/events", json: #"{"events":[\#(shown),"event_id":"e1"}]}"#)
    try await recorder.sdk("POST", "/v1/sdk/events", json: #"{"events":[{"type":"flow_shown"}]}"#)

    let transaction = StoreKitFixtures.transaction("1000", purchased: 0, expires: 30, token: profile)
    let jws = try signer.sign(json: StoreKitFixtures.object(transaction))
    let body = String(
      decoding: WireCoding.encode(
        TransactionRequest(signedTransaction: jws, variationId: "onboarding:default:standard")),
      as: UTF8.self)
    try await recorder.sdk("POST", "/v1/sdk/profiles/\(profile)/transactions", json: body)
    try await recorder.sdk("POST", "/v1/sdk/profiles/\(profile)/transactions", json: #"{"signed_transaction":"x.y.z"}"#)

    try await recorder.admin("GET", "/v1/admin/app")
    try await recorder.admin("GET", "/v1/admin/profiles/\(profile)")
    try await recorder.admin("GET", "/v1/admin/profiles?customer_user_id=cust-1")
    try await recorder.admin("GET", "/v1/admin/profiles?customer_user_id=")
    try await recorder.admin("GET", "/v1/admin/profiles/\(profile)/activity")
    try await recorder.admin("GET", "/v1/admin/stats/placements/onboarding?from=2026-09-01&to=2026-09-30")
    try await recorder.admin("GET", "/v1/admin/stats/placements/onboarding/days?from=2026-09-01&to=2026-09-30")
    try await recorder.admin("GET", "/v1/admin/stats/apple-ads?from=2026-09-01&to=2026-09-30&by=keyword")
    try await recorder.admin("GET", "/v1/admin/stats/placements/nowhere")
    try await recorder.admin("GET", "/v1/admin/overview")
    try await recorder.admin("GET", "/v1/admin/config/history")
    try await recorder.admin("GET", "/v1/admin/config/revisions/1")
    try await recorder.admin("GET", "/v1/admin/webhooks/deliveries")
    try await recorder.admin("GET", "/v1/admin/keys")
    try await recorder.admin("GET", "/v1/admin/audit")

    try await recorder.sdk("GET", "/v1/admin/config")
    try await recorder.send("GET", "/v1/sdk/fallback", key: "tg_pub_0000", scheme: "Api-Key")
    try await recorder.send("GET", "/v1/sdk/fallback")
    try await recorder.sdk("DELETE", "/v1/sdk/fallback")
    try await recorder.sdk("GET", "/v1/sdk/nothing-here")

    let text = recorder.transcript()
    if ProcessInfo.processInfo.environment["TOLLGATE_RECORD_GOLDEN"] == "1" {
      try Data(text.utf8).write(to: Self.golden)
      return
    }
    let recorded = try String(contentsOf: Self.golden, encoding: .utf8)
    if text != recorded {
      let actual = FileManager.default.temporaryDirectory.appendingPathComponent("api-sequence.actual")
      try Data(text.utf8).write(to: actual)
      let ours = text.split(separator: "\n", omittingEmptySubsequences: false)
      let theirs = recorded.split(separator: "\n", omittingEmptySubsequences: false)
      let line = (0..<min(ours.count, theirs.count)).first { ours[$0] != theirs[$0] } ?? min(ours.count, theirs.count)
      Issue.record(
        """
        The API answered differently from the recording at line \(line + 1) (the whole answer is in \(actual.path)):
        recorded: \(line < theirs.count ? String(theirs[line]) : "<end>")
        now:      \(line < ours.count ? String(ours[line]) : "<end>")
        """)
    }
  }

  /// Sends requests and writes each exchange down, normalized.
  struct Recorder {
    let server: TestServer
    private var lines: [String] = []
    /// The ids the script chose are named; others are numbered as they appear.
    private var ids = [
      "6f9619ff-8b86-d011-b42d-00c04fc964ff": "<profile>", "00000000-0000-0000-0000-000000000000": "<zero id>",
    ]

    init(server: TestServer) { self.server = server }

    mutating func sdk(_ method: String, _ path: String, json: String? = nil, headers: [String: String] = [:])
      async throws
    {
      try await send(method, path, key: server.sdkKey, scheme: "Api-Key", json: json, headers: headers)
    }

    mutating func admin(_ method: String, _ path: String, json: String? = nil) async throws {
      try await send(method, path, key: server.adminKey, scheme: "Bearer", json: json)
    }

    mutating func send(
      _ method: String, _ path: String, key: String? = nil, scheme: String = "Api-Key", json: String? = nil,
      headers: [String: String] = [:]
    ) async throws {
      let result = try await server.send(
        method, path, key: key, scheme: scheme, headers: headers, body: json.map { Data($0.utf8) })
      lines.append("### \(method) \(path)")
      lines.append("< \(result.status)")
      for name in APIGoldenTests.headers {
        if let value = result.header(name) { lines.append("< \(name): \(normalize(value))") }
      }
      var body = result.body
      // Keys made in the same instant are listed in the order of their random ids.
      if path == "/v1/admin/keys", case .object(var object)? = result.json, case .array(let keys)? = object["keys"] {
        object["keys"] = .array(
          keys.sorted { "\($0.objectValue?["kind"] ?? .null)" < "\($1.objectValue?["kind"] ?? .null)" })
        body = WireCoding.encode(JSONValue.object(object))
      }
      lines.append(normalize(String(decoding: body, as: UTF8.self)))
      lines.append("")
    }

    func transcript() -> String { lines.joined(separator: "\n") }

    /// Replaces what differs from run to run: keys and secrets by their kind, random UUIDs and
    /// key ids by their order of first appearance (so a repeated id still reads as the same).
    private mutating func normalize(_ text: String) -> String {
      var text = text
      for (pattern, label) in [
        ("tg_pub_[0-9a-f]{32}", "<public key>"), ("tg_sec_[0-9a-f]{48}", "<secret key>"),
        ("whsec_[0-9a-f]{48}", "<webhook secret>"),
      ] {
        text = text.replacingOccurrences(of: pattern, with: label, options: .regularExpression)
      }
      for pattern in ["key_[0-9a-f]{16}", "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"] {
        while let range = text.range(of: pattern, options: [.regularExpression, .caseInsensitive]) {
          let found = text[range].lowercased()
          let label = ids[found] ?? "<id \(ids.count - 1)>"
          ids[found] = label
          text.replaceSubrange(range, with: label)
        }
      }
      return text
    }
  }
}
