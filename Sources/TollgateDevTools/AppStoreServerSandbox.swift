import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgateServer
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A stand-in for Apple's App Store Server API (notification history, TEST notifications,
/// order lookup, subscription statuses, transaction history, consumption information), for
/// tests and demos: it checks the bearer token as Apple does (ES256 with the registered key; `kid`,
/// `typ`, `iss`, `aud`, `bid`, `exp` at most 60 minutes after `iat`), keeps the notifications
/// "Apple sent" by environment, pages them 20 at a time (or `pageSize`), and fails on request.
public final class AppStoreServerSandbox: Sendable {
  /// The app whose tokens are accepted.
  public struct Client: Sendable, Hashable, Codable {
    public var issuerId: String
    public var keyId: String
    public var bundleId: String
    public var publicKeyPEM: String

    public init(issuerId: String, keyId: String, bundleId: String, publicKeyPEM: String) {
      self.issuerId = issuerId
      self.keyId = keyId
      self.bundleId = bundleId
      self.publicKeyPEM = publicKeyPEM
    }
  }

  private struct Fault {
    var status: Int
    var retryAfterMs: Int64?
    var errorCode: Int?
  }

  /// Where TEST notifications go, and how they are signed (the app's notification URL and
  /// the development StoreKit chain).
  public struct Delivery: Sendable {
    public var url: URL
    public var sign: @Sendable ([String: Any]) throws -> String

    public init(url: URL, sign: @escaping @Sendable ([String: Any]) throws -> String) {
      self.url = url
      self.sign = sign
    }
  }

  /// A page of Get Transaction History as Apple answers it.
  private struct HistoryPage: Encodable {
    var revision: String
    var hasMore: Bool
    var bundleId: String
    var environment: String
    var signedTransactions: [String]
  }

  private struct State {
    var client: Client?
    var delivery: Delivery?
    var notifications: [String: [(signedDate: Int64, payload: String)]] = [:]
    var faults: [Fault] = []
    var orders: [String: [String]] = [:]
    var statuses: [String: (status: Int, signedTransaction: String)] = [:]
    var histories: [String: [String]] = [:]
    /// After this many transaction-history pages, the next one answers this status (once).
    var historyFault: (pages: Int, status: Int)?
    /// A notification-history page (by offset) answered only once released; `reached` is
    /// signalled when that page is asked for.
    var held: (offset: Int, gate: DispatchSemaphore, reached: DispatchSemaphore)?
    var consumption: [(transactionId: String, body: Data)] = []
    var calls = 0
    var requests: [NotificationHistoryRequest] = []
    /// Bearer tokens already verified, with when each expires.
    var accepted: [String: Double] = [:]
  }

  private let state = Mutex(State())
  private let listener = StandInListener()
  private let clock: @Sendable () -> Date
  /// Notifications per page (Apple: 20).
  public let pageSize: Int

  /// A stand-in telling time by `clock`.
  public init(pageSize: Int = 20, clock: @escaping @Sendable () -> Date = { Date() }) {
    self.pageSize = pageSize
    self.clock = clock
  }

  /// Sends TEST notifications to `delivery` (none are sent without one).
  public func deliver(_ delivery: Delivery) { state.withLock { $0.delivery = delivery } }

  /// Accepts this app's tokens (and no other).
  public func register(_ client: Client) {
    state.withLock { state in
      state.client = client
      state.accepted = [:]
    }
  }

  /// A notification Apple signed at `signedDate` (ms) in `environment`, kept for the history.
  public func keep(_ signedPayload: String, signedDate: Int64, environment: String = "Sandbox") {
    state.withLock { $0.notifications[environment, default: []].append((signedDate, signedPayload)) }
  }

  /// What Get All Subscription Statuses answers for a subscription: its last transaction.
  public func subscription(_ original: String, status: Int, lastTransaction signedTransaction: String) {
    state.withLock { $0.statuses[original] = (status, signedTransaction) }
  }

  /// What the stand-in was told (the app, notifications, orders, histories, statuses), saved so
  /// another process serves the same (`tollgate-dev app-store-sandbox --state FILE`).
  public struct Fixture: Codable, Sendable {
    public struct Kept: Codable, Sendable {
      public var environment: String
      public var signedDate: Int64
      public var payload: String
    }

    public var client: Client?
    public var notifications: [Kept]
    public var orders: [String: [String]]
    public var histories: [String: [String]]
  }

  /// Everything it was told, to save.
  public func fixture() -> Fixture {
    state.withLock { state in
      Fixture(
        client: state.client,
        notifications: state.notifications.flatMap { environment, kept in
          kept.map { Fixture.Kept(environment: environment, signedDate: $0.signedDate, payload: $0.payload) }
        }.sorted { $0.signedDate < $1.signedDate },
        orders: state.orders, histories: state.histories)
    }
  }

  /// Takes what another stand-in was told.
  public func load(_ fixture: Fixture) {
    state.withLock { state in
      state.client = fixture.client
      for kept in fixture.notifications {
        state.notifications[kept.environment, default: []].append((kept.signedDate, kept.payload))
      }
      state.orders.merge(fixture.orders) { _, new in new }
      state.histories.merge(fixture.histories) { _, new in new }
    }
  }

  /// A customer's signed transactions, as Get Transaction History answers them from any of
  /// `transactionIds` (in this order: ascending by modification).
  public func history(_ signedTransactions: [String], for transactionIds: [String]) {
    state.withLock { state in
      for id in transactionIds { state.histories[id] = signedTransactions }
    }
  }

  /// The Send Consumption Information bodies received, in order, by transaction id.
  public var consumptionAnswers: [(transactionId: String, body: [String: Any])] {
    state.withLock { $0.consumption }.map { answer in
      (answer.transactionId, (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]) ?? [:])
    }
  }

  /// An order (its id on the customer's receipt e-mail) and its signed transactions.
  public func order(_ orderId: String, signedTransactions: [String]) {
    state.withLock { $0.orders[orderId] = signedTransactions }
  }

  /// The next `count` calls answer `status` (429 with `Retry-After` in ms, 5xx, 401 …).
  public func fail(next count: Int = 1, status: Int, retryAfterMs: Int64? = nil, errorCode: Int? = nil) {
    state.withLock {
      $0.faults += Array(
        repeating: Fault(status: status, retryAfterMs: retryAfterMs, errorCode: errorCode), count: count)
    }
  }

  /// Holds the answer to the notification-history page starting at `offset` until `release()`
  /// or `stop()`: a test kills the server while it waits for that page.
  public func hold(historyPageAt offset: Int) {
    state.withLock { $0.held = (offset, DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)) }
  }

  /// Blocks until the held page is asked for (true) or `timeout` passes (false). It waits on a
  /// semaphore, not by polling from a task: a busy test process wakes it the moment the
  /// request arrives, before the server asking could give up on that page.
  public func waitUntilHeldPageIsAsked(timeout: TimeInterval) -> Bool {
    guard let reached = state.withLock({ $0.held?.reached }) else { return false }
    return reached.wait(timeout: .now() + timeout) == .success
  }

  /// After `pages` more Get Transaction History pages, the next answers `status` once (a fault
  /// in the middle of a customer's history).
  public func failHistory(afterPages pages: Int, status: Int) {
    state.withLock { $0.historyFault = (pages, status) }
  }

  /// Answers a held page.
  public func release() {
    state.withLock { state in
      state.held?.gate.signal()
      state.held = nil
    }
  }

  /// Calls answered so far (faults included).
  public var calls: Int { state.withLock { $0.calls } }

  /// The windows asked for, in order.
  public var requests: [NotificationHistoryRequest] { state.withLock { $0.requests } }

  /// Listens on `host:port`; returns the base URL (both environments' hosts).
  public func start(host: String = "127.0.0.1", port: UInt16 = 0) throws -> URL {
    let bound = try listener.start(host: host, port: port) { [self] in answer($0) }
    return URL(string: "http://\(host):\(bound)/")!
  }

  /// Stops listening (answering a held page first).
  public func stop() {
    release()
    listener.stop()
  }

  /// One request, as Apple would answer it.
  public func answer(_ request: Request) -> Response {
    let (fault, client) = state.withLock { state -> (Fault?, Client?) in
      state.calls += 1
      return (state.faults.isEmpty ? nil : state.faults.removeFirst(), state.client)
    }
    if let fault {
      var headers: [(String, String)] = []
      if let wait = fault.retryAfterMs { headers.append(("Retry-After", String(wait))) }
      let body = fault.errorCode.map { #"{"errorCode": \#($0), "errorMessage": "stand-in fault"}"# } ?? ""
      return Response(
        status: fault.status, headers: headers + [("Content-Type", "application/json")], body: Data(body.utf8))
    }
    guard let client, let bearer = request.headers["authorization"], bearer.hasPrefix("Bearer "),
      accepts(token: String(bearer.dropFirst(7)), client: client)
    else { return Response(status: 401) }
    if request.method == "POST", request.path.hasSuffix("/inApps/v1/notifications/test") {
      return test(
        bundleId: client.bundleId, environment: request.path.hasPrefix("/production/") ? "Production" : "Sandbox")
    }
    if request.method == "GET", request.path.hasPrefix("/production/inApps/v1/lookup/") {
      let orderId = String(request.path.dropFirst("/production/inApps/v1/lookup/".count))
      let signed = state.withLock { $0.orders[orderId] }
      let answer: [String: Any] = signed.map { ["status": 0, "signedTransactions": $0] } ?? ["status": 1]
      return .json(bytes: (try? JSONSerialization.data(withJSONObject: answer)) ?? Data())
    }
    if request.method == "GET", let range = request.path.range(of: "/inApps/v1/subscriptions/") {
      let original = String(request.path[range.upperBound...])
      guard let last = state.withLock({ $0.statuses[original] }) else {
        return error(404, code: 4040010, "transaction id not found")
      }
      let answer: [String: Any] = [
        "environment": request.path.hasPrefix("/production/") ? "Production" : "Sandbox", "bundleId": client.bundleId,
        "data": [
          [
            "subscriptionGroupIdentifier": "pro",
            "lastTransactions": [
              [
                "originalTransactionId": original, "status": last.status,
                "signedTransactionInfo": last.signedTransaction,
              ]
            ],
          ]
        ],
      ]
      return .json(bytes: (try? JSONSerialization.data(withJSONObject: answer)) ?? Data())
    }
    if request.method == "GET", let range = request.path.range(of: "/inApps/v2/history/") {
      let transactionId = String(request.path[range.upperBound...])
      let faulted = state.withLock { state -> Int? in
        guard let fault = state.historyFault else { return nil }
        if fault.pages == 0 {
          state.historyFault = nil
          return fault.status
        }
        state.historyFault = (fault.pages - 1, fault.status)
        return nil
      }
      if let faulted { return error(faulted, code: 5_000_000, "stand-in fault") }
      guard let all = state.withLock({ $0.histories[transactionId] }) else {
        return error(404, code: 4040010, "transaction id not found")
      }
      let offset: Int
      if let revision = request.query["revision"] {
        guard revision.hasPrefix("rev-"), let value = Int(revision.dropFirst(4)) else {
          return error(400, code: 4000005, "invalid revision")
        }
        offset = value
      } else {
        offset = 0
      }
      let page = Array(all.dropFirst(offset).prefix(pageSize))
      // Encoded, not serialized: JSONSerialization escapes a string a character at a time,
      // and the stand-in would spend more on a page of signed transactions than the importer.
      return .json(
        HistoryPage(
          revision: "rev-\(offset + page.count)", hasMore: offset + page.count < all.count, bundleId: client.bundleId,
          environment: request.path.hasPrefix("/production/") ? "Production" : "Sandbox", signedTransactions: page))
    }
    if request.method == "PUT", let range = request.path.range(of: "/inApps/v2/transactions/consumption/") {
      let transactionId = String(request.path[range.upperBound...])
      guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
        body["customerConsented"] as? Bool == true, body["deliveryStatus"] is String,
        body["sampleContentProvided"] is Bool
      else { return error(400, code: 4000023, "invalid request body") }
      state.withLock { $0.consumption.append((transactionId, request.body)) }
      return Response(status: 202)
    }
    let environment: String
    if request.method == "POST", request.path.hasSuffix("/inApps/v1/notifications/history") {
      environment = request.path.hasPrefix("/production/") ? "Production" : "Sandbox"
    } else {
      return error(404, code: 4040000, "no such endpoint in the stand-in: \(request.method) \(request.path)")
    }
    guard let body = try? JSONDecoder().decode(NotificationHistoryRequest.self, from: request.body) else {
      return error(400, code: 4000023, "invalid request body")
    }
    let oldest = Int64((clock().timeIntervalSince1970 - NotificationHistoryRequest.retention) * 1000)
    guard body.startDate >= oldest - 86_400_000, body.startDate <= body.endDate else {
      return error(400, code: 4000029, "invalid start date")
    }
    let offset: Int
    if let token = request.query["paginationToken"] {
      guard let value = Int(token.dropFirst("page-".count)), token.hasPrefix("page-") else {
        return error(400, code: 4000014, "invalid pagination token")
      }
      offset = value
    } else {
      offset = 0
    }
    let matching = state.withLock { state -> [String] in
      state.requests.append(body)
      return (state.notifications[environment] ?? []).filter { (body.startDate...body.endDate).contains($0.signedDate) }
        .sorted { $0.signedDate < $1.signedDate }.map(\.payload)
    }
    if let held = state.withLock({ $0.held?.offset == offset ? $0.held : nil }) {
      held.reached.signal()
      // Bounded so a test that never releases cannot keep a listener thread for good.
      _ = held.gate.wait(timeout: .now() + 600)
    }
    let page = Array(matching.dropFirst(offset).prefix(pageSize))
    let more = offset + page.count < matching.count
    let answer: [String: Any] = [
      "notificationHistory": page.map { ["signedPayload": $0, "sendAttempts": [[String: Any]]()] },
      "hasMore": more, "paginationToken": more ? "page-\(offset + page.count)" : "",
    ]
    return .json(bytes: (try? JSONSerialization.data(withJSONObject: answer)) ?? Data())
  }

  /// Request a Test Notification: Apple signs a TEST notification and posts it to the app's
  /// URL (here before answering, so a test sees it arrive), then answers its token.
  private func test(bundleId: String, environment: String) -> Response {
    let token = "test-" + UUID().uuidString.lowercased()
    if let delivery = state.withLock({ $0.delivery }) {
      let payload: [String: Any] = [
        "notificationType": "TEST", "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0",
        "signedDate": Int64(clock().timeIntervalSince1970 * 1000),
        "data": ["bundleId": bundleId, "environment": environment],
      ]
      if let jws = try? delivery.sign(payload),
        let body = try? JSONSerialization.data(withJSONObject: ["signedPayload": jws])
      {
        var request = URLRequest(url: delivery.url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, _, _ in done.signal() }.resume()
        done.wait()
      }
    }
    return .json(bytes: (try? JSONSerialization.data(withJSONObject: ["testNotificationToken": token])) ?? Data())
  }

  private func error(_ status: Int, code: Int, _ message: String) -> Response {
    let body = (try? JSONSerialization.data(withJSONObject: ["errorCode": code, "errorMessage": message])) ?? Data()
    return Response(status: status, headers: [("Content-Type", "application/json")], body: body)
  }

  /// Whether a bearer token is good now: verified once, then remembered until it expires (a
  /// client sends the same token for many calls, and the stand-in must not cost more than the
  /// importer it measures).
  private func accepts(token: String, client: Client) -> Bool {
    let now = clock()
    if let expires = state.withLock({ $0.accepted[token] }), expires > now.timeIntervalSince1970 { return true }
    guard Self.verify(token: token, client: client, now: now),
      let claims = CompactJWS(token).flatMap({ try? JSONSerialization.jsonObject(with: $0.payload) as? [String: Any] }),
      let expires = (claims["exp"] as? NSNumber)?.doubleValue
    else { return false }
    state.withLock { state in
      if state.accepted.count >= 1_000 { state.accepted = [:] }
      state.accepted[token] = expires
    }
    return true
  }

  /// The token's checks, as Apple documents them.
  public static func verify(token: String, client: Client, now: Date) -> Bool {
    guard let jws = CompactJWS(token),
      let header = try? JSONSerialization.jsonObject(with: jws.header) as? [String: Any],
      let claims = try? JSONSerialization.jsonObject(with: jws.payload) as? [String: Any],
      header["alg"] as? String == "ES256", header["kid"] as? String == client.keyId, header["typ"] as? String == "JWT",
      claims["iss"] as? String == client.issuerId, claims["aud"] as? String == AppStoreServerToken.audience,
      claims["bid"] as? String == client.bundleId,
      let issued = (claims["iat"] as? NSNumber)?.doubleValue, let expires = (claims["exp"] as? NSNumber)?.doubleValue,
      issued <= now.timeIntervalSince1970 + 60, expires > now.timeIntervalSince1970, expires - issued <= 3_600,
      let key = try? ECKey(publicPEM: client.publicKeyPEM)
    else { return false }
    return key.verifyES256(signature: jws.signature, over: jws.signingInput)
  }
}
