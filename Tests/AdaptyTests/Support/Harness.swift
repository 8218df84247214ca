import Foundation
import Synchronization
import TollgateAPI

@testable import Adapty

/// One SDK "install": a storage directory, a fake server, a manual clock, and its own
/// fallback and delegate holders, so tests run in parallel without sharing state.
final class Harness: Sendable {
  let directory: URL
  let transport: FakeTransport
  let clock: ManualClock
  let fallback = FallbackFlows()
  let delegates = DelegateHolder()

  init(directory: URL? = nil, transport: FakeTransport = FakeTransport(), clock: ManualClock = ManualClock()) {
    self.directory =
      directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("adapty-tests-\(UUID().uuidString)")
    self.transport = transport
    self.clock = clock
  }

  func configuration(customerUserId: String? = nil, token: (any AdaptyAttributionTokenProvider)? = nil)
    -> AdaptyConfiguration
  {
    let builder = AdaptyConfiguration.builder(withAPIKey: "tg_pub_test")
      .with(storageDirectory: directory)
      .with(customerUserId: customerUserId)
      .with(attributionTokenProvider: token)
    builder.dependencies.transport = transport
    builder.dependencies.clock = clock
    // Tests run the attribution collector themselves, so its steps are theirs to order.
    builder.dependencies.collectsAttributionAtLaunch = false
    builder.dependencies.installInfo = {
      InstallInfo(appVersion: "1.0", osVersion: "17.0", deviceModel: "test", locale: "en")
    }
    return builder.build()
  }

  /// "Launches the app": a new runtime over this install's files.
  func launch(customerUserId: String? = nil, token: (any AdaptyAttributionTokenProvider)? = nil) async -> AdaptyRuntime
  {
    await AdaptyRuntime.launch(
      configuration(customerUserId: customerUserId, token: token), fallback: fallback, delegates: delegates)
  }

  func facade() -> Facade { Facade(fallback: fallback, delegates: delegates) }

  func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

  /// Writes a fallback file and loads it.
  func loadFallback(_ placements: [String: String] = ["onboarding": "fallback_flow"]) throws {
    let file = FallbackFile(
      formatVersion: 1, revision: 7, generatedAt: "2026-01-01T00:00:00.000Z",
      placements: placements.sorted { $0.key < $1.key }.map { id, flow in
        .init(
          id: id, audienceName: "All Users",
          flow: .init(
            id: flow, name: flow, variationId: "\(id):default:\(flow)", products: ["p"],
            remoteConfigs: ["en": .object(["title": .string("en")]), "fr": .object(["title": .string("fr")])]))
      })
    let url = directory.appendingPathComponent("fallback-\(UUID().uuidString).json")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try WireCoding.encode(file).write(to: url)
    try fallback.load(from: url)
  }
}

/// A scripted server that behaves like Tollgate for the SDK routes; tests override parts.
enum Scripted {
  /// Profiles by id, with their version; placement answers by id.
  final class Server: Sendable {
    let versions = Mutex<[String: Int64]>([:])
    let sources = Mutex<[String]>([])

    func respond(_ request: HTTPRequest) throws -> HTTPResponse {
      let parts = request.path.split(separator: "/").map(String.init)
      let method = request.method
      if method == "POST" && parts == ["v1", "sdk", "profiles"] {
        let id = Wire.createdProfileId(request) ?? "?"
        let version = versions.withLock { versions -> Int64 in
          let version = versions[id, default: 1]
          versions[id] = version
          return version
        }
        return Wire.json(Wire.profile(id, version: version, sources: sources.withLock { $0 }), status: 201)
      }
      if parts.count == 4 && parts[0...2] == ["v1", "sdk", "profiles"] {
        let id = parts[3]
        if method == "GET" {
          guard let version = versions.withLock({ $0[id] }) else { return Wire.error(404, "profile_not_found") }
          let etag = "\"v\(version)\""
          if request.headers["If-None-Match"] == etag { return HTTPResponse(status: 304) }
          return Wire.json(Wire.profile(id, version: version, sources: sources.withLock { $0 }), etag: etag)
        }
        let version = versions.withLock { versions -> Int64 in
          versions[id, default: 1] += 1
          return versions[id]!
        }
        let body = try WireCoding.decoder.decode(UpdateProfileRequest.self, from: request.body ?? Data())
        return Wire.json(Wire.profile(id, version: version, attributes: body.customAttributes ?? [:]))
      }
      if parts.count == 5 && parts[0...2] == ["v1", "sdk", "placements"] {
        let placement = parts[3]
        if parts[4] == "flow" { return Wire.json(Wire.flow(placement, flow: "segmented_flow", audience: "Everyone")) }
        let etag = "\"d-\(placement)\""
        if request.headers["If-None-Match"] == etag { return HTTPResponse(status: 304) }
        return Wire.json(Wire.flow(placement, flow: "default_flow"), etag: etag)
      }
      if method == "POST" && parts == ["v1", "sdk", "events"] {
        let batch = try WireCoding.decoder.decode(EventBatchRequest.self, from: request.body ?? Data())
        return Wire.json(EventBatchResponse(accepted: batch.events.count, duplicates: 0))
      }
      return Wire.error(404, "route_not_found")
    }

    /// Bumps a profile's version (a change made elsewhere, e.g. attribution applied).
    func bump(_ id: String, sources: [String]) {
      versions.withLock { $0[id, default: 1] += 1 }
      self.sources.withLock { $0 = sources }
    }
  }
}

/// Collects what a delegate receives.
final class RecordingDelegate: AdaptyDelegate {
  private let received = Mutex<[AdaptyProfile]>([])
  private let condition = Condition()
  var profiles: [AdaptyProfile] { received.withLock { $0 } }

  func didLoadLatestProfile(_ profile: AdaptyProfile) {
    received.withLock { $0.append(profile) }
    condition.changed()
  }

  /// Suspends until `count` profiles arrived.
  func wait(for count: Int) async {
    await condition.wait { self.profiles.count >= count }
  }
}

/// Log lines, captured for assertions.
final class LogCapture: Sendable {
  let lines = Mutex<[String]>([])
}

/// A token provider that answers from a script: each call takes the next result.
final class ScriptedToken: AdaptyAttributionTokenProvider {
  private let results: Mutex<[Result<String, AdaptyAttributionTokenError>]>
  private let callCount = Mutex(0)

  init(_ results: [Result<String, AdaptyAttributionTokenError>]) { self.results = Mutex(results) }

  var calls: Int { callCount.withLock { $0 } }

  func attributionToken() async throws -> String {
    callCount.withLock { $0 += 1 }
    let next = results.withLock {
      $0.isEmpty ? Result.failure(.temporarilyUnavailable("script exhausted")) : $0.removeFirst()
    }
    return try next.get()
  }
}
