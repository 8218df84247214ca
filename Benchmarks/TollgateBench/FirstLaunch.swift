@_spi(Demo) import Adapty
import Foundation
import Synchronization
import TollgateAPI
import TollgateDevTools
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// SDK first-launch timings, in-process with the real server and the Apple Ads stand-in on
/// loopback: activate → flow in hand, for attribution applied after 0.2, 1, 3 s and never,
/// with a 5 s timeout, for the documented pattern and the built-in race.
enum FirstLaunch {
  static let timeout: TimeInterval = 5
  static let placement = "onboarding"

  static func run(config: String) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tollgate-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLiteStore(path: directory.appendingPathComponent("bench.sqlite").path)
    let keys = try KeyIssuer(apps: store).issue(appName: "bench")
    _ = try ConfigImporter(database: store).apply(Data(contentsOf: URL(fileURLWithPath: config)), appId: keys.app.id)
    let sandbox = AppleAdsSandbox()
    let appleURL = try sandbox.start()
    var serverConfiguration = ServerConfiguration()
    serverConfiguration.http.port = 0
    serverConfiguration.logger = Logger(level: .error)
    serverConfiguration.apple = AppleAdsClient(url: appleURL)
    let server = Server(store: OpenedStore(store), configuration: serverConfiguration)
    let port = try server.start()
    defer {
      server.stop()
      sandbox.stop()
    }
    Adapty.logLevel = .error
    let base = URL(string: "http://127.0.0.1:\(port)")!
    let rtt = try await roundTrip(base)

    emit("| attribution after | pattern | activate → flow | ideal | gap | flow | SDK requests | duplicate fetches |")
    emit("|---|---|---|---|---|---|---|---|")
    for delay in [0.2, 1, 3, nil] as [Double?] {
      for pattern in ["documented pattern", "built-in race"] {
        let token = delay.map { "sbx|delay_ms=\(Int($0 * 1000))|campaign=542370539|run=\(UUID().uuidString)" }
        let storage = directory.appendingPathComponent(UUID().uuidString)
        let before = try await sdkRequests(base)
        let start = Date()
        let device = try await AdaptyDevice.launch(configuration(keys.publicKey, base, storage, token))
        let flow =
          pattern == "built-in race"
          ? try await device.getFlow(placementId: placement, awaitingAttribution: .appleAds, timeout: timeout)
          : try await documentedPattern(device)
        let elapsed = Date().timeIntervalSince(start)
        await device.quit()
        let after = try await sdkRequests(base)
        let ideal = delay.map { $0 + rtt } ?? timeout
        let flowRequests = after.flow - before.flow
        let defaultRequests = after.defaults - before.defaults
        let duplicates = max(0, flowRequests - 1) + max(0, defaultRequests - 1)
        emit(
          "| \(delay.map { "\($0) s" } ?? "never") | \(pattern) | \(ms(elapsed)) | \(ms(ideal)) | \(ms(elapsed - ideal)) "
            + "| \(flow.id) (\(flow.source.rawValue)) | \(after.total - before.total) | \(duplicates) |")
      }
    }

    // Second launch of an attributed install: time to the cached profile.
    let storage = directory.appendingPathComponent("second")
    let first = try await AdaptyDevice.launch(
      configuration(keys.publicKey, base, storage, "sbx|campaign=542370539|run=second"))
    _ = try await first.getFlow(placementId: placement, awaitingAttribution: .appleAds, timeout: timeout)
    for await profile in first.profileUpdates where profile.appliedExternalAttributionProviders.contains(.appleAds) {
      break
    }
    await first.quit()
    let observer = FirstProfile()
    let start = Date()
    let second = try await AdaptyDevice.launch(
      configuration(keys.publicKey, base, storage, "sbx|campaign=542370539|run=second"), delegate: observer)
    let cached = observer.receivedAt.map { $0.timeIntervalSince(start) }
    let secondFlowStart = Date()
    let secondFlow = try await second.getFlow(placementId: placement, awaitingAttribution: .appleAds, timeout: timeout)
    let secondFlowTime = Date().timeIntervalSince(secondFlowStart)
    emit("")
    emit(
      "second launch: cached profile (with .appleAds: \(observer.hadAppleAds)) delivered \(cached.map(ms) ?? "never") "
        + "after activate; flow \(secondFlow.id) in \(ms(secondFlowTime)); loopback round trip \(ms(rtt))")

    // Memory: 1 000 getFlow calls on one device.
    let rssBefore = residentMB()
    for _ in 0..<1_000 { _ = try await second.getFlow(placementId: placement) }
    let rssAfter = residentMB()
    await second.quit()
    emit(
      String(
        format: "resident memory over 1 000 getFlow calls: %.1f MB → %.1f MB (growth %.1f MB)", rssBefore, rssAfter,
        rssAfter - rssBefore))
  }

  static func configuration(_ key: String, _ base: URL, _ storage: URL, _ token: String?) -> AdaptyConfiguration {
    AdaptyConfiguration.builder(withAPIKey: key).with(backendBaseUrl: base).with(storageDirectory: storage)
      .with(attributionTokenProvider: AdaptyStaticAttributionTokenProvider(token)).build()
  }

  /// The documented FlowLoader, on one device.
  static func documentedPattern(_ device: AdaptyDevice) async throws -> AdaptyFlow {
    struct TimedOut: Error {}
    let defaultFlowTask = Task { try await device.getFlowForDefaultAudience(placementId: placement) }
    do {
      let result = try await withThrowingTaskGroup(of: AdaptyFlow.self) { group in
        group.addTask {
          for await profile in device.profileUpdates
          where profile.appliedExternalAttributionProviders.contains(.appleAds) {
            break
          }
          return try await device.getFlow(placementId: placement)
        }
        group.addTask {
          try await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
          throw TimedOut()
        }
        guard let value = try await group.next() else { throw CancellationError() }
        group.cancelAll()
        return value
      }
      defaultFlowTask.cancel()
      return result
    } catch is TimedOut {
      return try await defaultFlowTask.value
    }
  }

  /// Median of 20 `GET /health` round trips.
  static func roundTrip(_ base: URL) async throws -> TimeInterval {
    var samples: [TimeInterval] = []
    for _ in 0..<20 {
      let start = Date()
      _ = try await URLSession.shared.data(from: base.appendingPathComponent("health"))
      samples.append(Date().timeIntervalSince(start))
    }
    return samples.sorted()[samples.count / 2]
  }

  /// SDK requests the server answered so far on the paywall path (event batches are
  /// analytics, sent in the background, and not counted): all, segmented flow, default flow.
  static func sdkRequests(_ base: URL) async throws -> (total: Int, flow: Int, defaults: Int) {
    let (data, _) = try await URLSession.shared.data(from: base.appendingPathComponent("metrics"))
    var total = 0
    var flow = 0
    var defaults = 0
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n")
    where line.hasPrefix("tollgate_http_requests_total{route=\"/v1/sdk") && !line.contains("/v1/sdk/events\"") {
      let count = Int(line.split(separator: " ").last ?? "") ?? 0
      total += count
      if line.contains("/flow\"") { flow += count }
      if line.contains("/default\"") { defaults += count }
    }
    return (total, flow, defaults)
  }

  static func ms(_ seconds: TimeInterval) -> String { "\(Int((seconds * 1000).rounded())) ms" }

  static func residentMB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
  }
}

/// Notes when the first profile arrives.
final class FirstProfile: AdaptyDelegate {
  private let state = Mutex<(Date?, Bool)>((nil, false))
  var receivedAt: Date? { state.withLock { $0.0 } }
  var hadAppleAds: Bool { state.withLock { $0.1 } }

  func didLoadLatestProfile(_ profile: AdaptyProfile) {
    state.withLock { state in
      if state.0 == nil {
        state = (Date(), profile.appliedExternalAttributionProviders.contains(.appleAds))
      }
    }
  }
}
