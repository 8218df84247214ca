import Dispatch
import Foundation
import Synchronization
import Testing
import TollgateAPI
import TollgateDevTools
import TollgateTestSupport

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// A local receiver for webhooks (loopback): records every request and answers with the
/// scripted statuses in turn (then 200).
final class WebhookReceiver: Sendable {
  struct Received: Sendable {
    let body: Data
    let headers: [String: String]
    var event: WebhookEventBody { try! WireCoding.decoder.decode(WebhookEventBody.self, from: body) }
  }

  /// What arrived and what to answer next.
  final class Log: Sendable {
    let state = Mutex<(received: [Received], statuses: [Int])>(([], []))
  }

  private let log = Log()
  private let http: HTTPServer
  let port: UInt16

  init() throws {
    var settings = HTTPServer.Settings()
    settings.port = 0
    settings.threads = 2
    let log = self.log
    http = HTTPServer(settings: settings) { request in
      let status = log.state.withLock { state -> Int in
        state.received.append(Received(body: request.body, headers: request.headers.dictionary))
        return state.statuses.isEmpty ? 200 : state.statuses.removeFirst()
      }
      return Response(status: status)
    }
    port = try http.start()
  }

  var url: String { "http://127.0.0.1:\(port)/hooks" }
  var received: [Received] { log.state.withLock { $0.received } }
  func answer(_ statuses: [Int]) { log.state.withLock { $0.statuses = statuses } }
  func stop() { http.shutdown() }
}

@Suite("Webhooks")
struct WebhookTests {
  typealias F = StoreKitFixtures

  /// A server with the sample configuration plus a webhook to `receiver`.
  struct Harness {
    let signer: StoreKitSigner
    let server: TestServer
    let receiver: WebhookReceiver
    let secret: String

    init(events: [String] = ["*"]) async throws {
      signer = try StoreKitSigner(appleNames: false)
      server = try TestServer(
        appStoreVerifier: try SignedDataVerifier(rootCertificate: Data(signer.rootPEM.utf8)), mode: .inProcess)
      receiver = try WebhookReceiver()
      var document =
        try JSONSerialization.jsonObject(
          with: Data(contentsOf: repositoryRoot.appendingPathComponent("examples/sample-config.json")))
        as! [String: Any]
      document["webhooks"] = [["id": "backend", "url": receiver.url, "events": events]]
      let body = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
      let applied = try await server.admin("PUT", "/v1/admin/config", json: body)
      precondition(applied.status == 200, "\(String(decoding: applied.body, as: UTF8.self))")
      secret = applied.json?.objectValue?["webhook_secrets"]?.objectValue?["backend"]?.stringValue ?? ""
    }

    func buy(_ transaction: TransactionPayload, profile: String) async throws {
      let jws = try signer.sign(json: F.object(transaction))
      let body = String(decoding: WireCoding.encode(TransactionRequest(signedTransaction: jws)), as: UTF8.self)
      let result = try await server.sdk("POST", "/v1/sdk/profiles/\(profile)/transactions", json: body)
      precondition(result.status == 200)
    }

    var worker: WebhookWorker { server.server.service.webhooks }

    /// Lets passes the routes kicked finish, then runs delivery passes until nothing is due
    /// (at the test's clock).
    func deliver() async {
      let worker = self.worker
      // Waited for on a Dispatch thread: blocking a Swift concurrency thread could starve the
      // very pass being waited for.
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
          worker.waitUntilIdle()
          continuation.resume()
        }
      }
      while await worker.processDue() > 0 {}
    }

    func stop() {
      server.stop()
      receiver.stop()
    }
  }

  @Test("events are signed with the webhook's secret, carry a stable id, and arrive in order")
  func signedAndOrdered() async throws {
    let harness = try await Harness()
    defer { harness.stop() }
    #expect(harness.secret.hasPrefix("whsec_"))
    let profile = try await harness.server.createProfile()
    try await harness.buy(F.transaction("1000", purchased: 0, expires: 30, token: profile), profile: profile)
    await harness.deliver()
    let received = harness.receiver.received
    #expect(received.map(\.event.type) == [.subscriptionStarted, .accessLevelUpdated])
    for request in received {
      let event = request.event
      #expect(event.profileId == profile)
      #expect(event.app == "alpha")
      #expect(request.headers["tollgate-event-id"] == event.eventId)
      // The receiver's check: HMAC-SHA256(secret, t + "." + body) against v1.
      let signature = try #require(request.headers["tollgate-signature"])
      let parts = Dictionary(
        uniqueKeysWithValues: signature.split(separator: ",").map { pair in
          let kv = pair.split(separator: "=", maxSplits: 1)
          return (String(kv[0]), String(kv[1]))
        })
      let expected = Digest.hmacSHA256Hex(key: harness.secret, message: Data("\(parts["t"]!).".utf8) + request.body)
      #expect(parts["v1"] == expected)
      #expect(
        Digest.hmacSHA256Hex(key: "whsec_wrong", message: Data("\(parts["t"]!).".utf8) + request.body) != expected)
    }
    #expect(received[0].event.data.objectValue?["transaction"]?.objectValue?["transaction_id"] == .string("1000"))
    let deliveries = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries?status=delivered")
    #expect(deliveries.json?.objectValue?["deliveries"]?.arrayValue?.count == 2)
  }

  @Test("a failed delivery is retried with back-off, and holds back the profile's later events until it lands")
  func retriesInOrder() async throws {
    let harness = try await Harness()
    defer { harness.stop() }
    let profile = try await harness.server.createProfile()
    harness.receiver.answer([500])
    try await harness.buy(F.transaction("1000", purchased: 0, expires: 30, token: profile), profile: profile)
    await harness.deliver()
    #expect(harness.receiver.received.count == 1, "the second event waits for the first")
    await harness.deliver()
    #expect(harness.receiver.received.count == 1, "not due before its back-off")
    harness.server.time.advance(days: 31 / 86_400)
    await harness.deliver()
    let types = harness.receiver.received.map(\.event.type)
    #expect(types == [.subscriptionStarted, .subscriptionStarted, .accessLevelUpdated])
    #expect(harness.receiver.received[0].event.eventId == harness.receiver.received[1].event.eventId)
  }

  @Test("after 72 hours of failures a delivery is parked; redeliver puts it back")
  func parking() async throws {
    let harness = try await Harness(events: ["subscription_started"])
    defer { harness.stop() }
    let profile = try await harness.server.createProfile()
    harness.receiver.answer(Array(repeating: 503, count: 100))
    try await harness.buy(F.transaction("1000", purchased: 0, expires: 30, token: profile), profile: profile)
    var attempts = 0
    for _ in 0..<60 {
      await harness.deliver()
      attempts = harness.receiver.received.count
      let parked = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries?status=parked")
      if parked.json?.objectValue?["deliveries"]?.arrayValue?.isEmpty == false { break }
      harness.server.time.advance(days: 0.25)
    }
    let parked = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries?status=parked")
    let delivery = try #require(parked.json?.objectValue?["deliveries"]?.arrayValue?.first?.objectValue)
    #expect(delivery["last_status"] == .int(503))
    #expect(attempts > 5 && attempts < 40, "\(attempts) attempts over 72 h")
    harness.receiver.answer([])
    let id = try #require(delivery["id"]?.numberValue.map { Int64($0) })
    #expect(try await harness.server.admin("POST", "/v1/admin/webhooks/deliveries/\(id)/redeliver").status == 200)
    await harness.deliver()
    #expect(harness.receiver.received.last?.event.type == .subscriptionStarted)
    let delivered = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries?status=delivered")
    #expect(delivered.json?.objectValue?["deliveries"]?.arrayValue?.count == 1)
    #expect(try await harness.server.admin("POST", "/v1/admin/webhooks/deliveries/999/redeliver").status == 404)
  }

  @Test("redeliver answers the delivery it put back, pending, however many deliveries are newer")
  func redeliverOld() async throws {
    let harness = try await Harness(events: ["subscription_started"])
    defer { harness.stop() }
    let profile = try await harness.server.createProfile()
    try await harness.buy(F.transaction("1000", purchased: 0, expires: 30, token: profile), profile: profile)
    await harness.deliver()
    let delivered = try await harness.server.admin("GET", "/v1/admin/webhooks/deliveries?status=delivered")
    let first = delivered.json?.objectValue?["deliveries"]?.arrayValue?.first?.objectValue
    let id = try #require(first?["id"]?.numberValue)
    // A thousand newer deliveries: the answer once came from the newest thousand, without this one.
    let store = try SQLiteStore(path: harness.server.databasePath, connections: 1)
    defer { store.close() }
    try store.with { db in
      try db.execute(
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        INSERT INTO webhook_deliveries (app_id, event_id, webhook_id, profile_id, event_type, body, status,
          next_attempt_at, deadline, created_at)
        SELECT app_id, event_id || '-' || i, webhook_id, profile_id, event_type, body, 'delivered', next_attempt_at,
          deadline, created_at FROM webhook_deliveries, n
        """)
    }
    let answer = try await harness.server.admin("POST", "/v1/admin/webhooks/deliveries/\(Int64(id))/redeliver")
    #expect(answer.status == 200)
    let deliveries = try #require(answer.json?.objectValue?["deliveries"]?.arrayValue)
    #expect(deliveries.count == 1)
    #expect(deliveries.first?.objectValue?["id"]?.numberValue == id)
    #expect(deliveries.first?.objectValue?["status"] == .string("pending"))
  }

  @Test("a worker that dies mid-delivery leaves it leased; once the lease ends it is sent again (at least once)")
  func leaseExpiry() async throws {
    let fixture = try OutboxFixture(profiles: 1)
    defer { fixture.stop() }
    // A worker (another process) claimed it and was killed before recording the outcome.
    let claimed = try fixture.store.claimWebhookDeliveries(now: fixture.time.now(), lease: 60, limit: 10)
    #expect(claimed.count == 1)
    let worker = fixture.worker()
    #expect(await worker.processDue() == 0, "leased to the dead worker")
    #expect(fixture.receiver.received.isEmpty)
    fixture.time.advance(days: 61 / 86_400)
    #expect(await worker.processDue() == 1)
    #expect(fixture.receiver.received.map(\.event.eventId) == [claimed[0].eventId])
  }

  @Test("two workers on one database never send one event twice", arguments: StoreFactory.available)
  func twoWorkers(factory: StoreFactory) async throws {
    let fixture = try OutboxFixture(profiles: 40, factory: factory)
    defer { fixture.stop() }
    let workers = [fixture.worker(), fixture.worker()]
    await withTaskGroup(of: Void.self) { group in
      for worker in workers {
        group.addTask { while await worker.processDue() > 0 {} }
      }
    }
    let ids = fixture.receiver.received.map(\.event.eventId)
    #expect(ids.count == 40)
    #expect(Set(ids).count == ids.count)
  }

  /// A store with one `subscription_started` delivery per profile waiting in the outbox.
  struct OutboxFixture {
    let store: any Database
    let receiver: WebhookReceiver
    let box = try! SecretBox(key: Array(repeating: 9, count: 32))
    let webhook: WebhookConfig
    let time = ManualTime(F.date(1))

    init(profiles: Int, factory: StoreFactory = .sqlite) throws {
      store = try factory.make()
      receiver = try WebhookReceiver()
      webhook = WebhookConfig(id: "backend", url: URL(string: receiver.url)!, events: [.subscriptionStarted])
      let app = try store.createApp(name: "hooks")
      _ = try store.ensureWebhookSecrets(appId: app.id, ids: ["backend"], box: box, at: F.date(0))
      for index in 0..<profiles {
        let profile = String(format: "00000000-0000-4000-8000-%012d", index)
        let id = String(5_000 + index)
        _ = try store.insertProfile(
          appId: app.id, ProfileRecord(id: profile, createdAt: F.date(0), updatedAt: F.date(0)))
        _ = try PurchaseRecorder(store).record(
          appId: app.id,
          AppStoreFacts(
            transactions: [
              StoredTransaction(payload: F.transaction(id, original: id, purchased: 0, expires: 30), jws: "jws")
            ], claimant: profile, webhooks: [webhook]), at: F.date(0),
          derive: { PurchaseDerivation.derive($0, levels: F.levels, now: F.date(1)) })
      }
    }

    func worker() -> WebhookWorker {
      let webhook = self.webhook
      return WebhookWorker(
        outbox: store, time: time, logger: Logger(level: .error), secrets: box, webhooks: { _ in [webhook] })
    }

    func stop() {
      store.close()
      receiver.stop()
    }
  }
}
