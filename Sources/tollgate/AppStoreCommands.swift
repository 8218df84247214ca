import Dispatch
import Foundation
import Synchronization
import TollgateAPI
import TollgateCommandLine
import TollgateDomain
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// `tollgate app-store credentials|status|recover`: the App Store Server API from the command
/// line, on the database directly (a running server looks for due recoveries every 15 seconds).
enum AppStoreCommands {
  static func open(_ options: inout Options, sealing: Bool = false) throws -> (
    any Database, AppRecord, AppStoreServerService
  ) {
    let name = try options.required("--app")
    let databasePath = options.databasePath
    let box = sealing ? try CommandLineTool.secretsBox(&options, databasePath: databasePath) : nil
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 1).database
    guard let app = try store.app(named: name) else {
      store.close()
      throw Failure.missing("no app named \(name); create it with: tollgate keys create --app \(name)")
    }
    return (store, app, AppStoreServerService(database: store, secrets: box, time: SystemTimeSource()))
  }

  static func credentials(_ options: inout Options) throws {
    let file = try options.required("--key")
    let (store, app, service) = try open(&options, sealing: true)
    defer { store.close() }
    try options.finish()
    let pem: String
    do { pem = try String(contentsOfFile: file, encoding: .utf8) } catch { throw Failure("cannot read \(file)") }
    let status = try service.saveCredentials(appId: app.id, privateKey: pem, by: "cli")
    print(
      "sealed the In-App Purchase key of \(app.name) (public key SHA-256 \(status.credentials?.keyFingerprint ?? "")); a running server recovers missed notifications within seconds"
    )
  }

  static func status(_ options: inout Options) throws {
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    let status = try service.status(appId: app.id)
    print(
      "app_store.server_api configured: \(status.configured ? "yes, issuer \(status.issuerId ?? ""), key \(status.keyId ?? "")" : "no")"
    )
    if let credentials = status.credentials {
      print("In-App Purchase key: \(credentials.keyFingerprint.prefix(16))…, uploaded \(credentials.uploadedAt)")
    } else {
      print("In-App Purchase key: none (tollgate app-store credentials --app \(app.name) --key FILE.p8)")
    }
    for recovery in status.recoveries {
      print(
        "notification recovery, \(recovery.environment): \(recovery.status)\(recovery.failure.map { " (\($0))" } ?? "")"
      )
      if let from = recovery.coveredFrom, let to = recovery.coveredTo { print("  covered \(from) … \(to)") }
      print(
        "  recovered \(recovery.recovered), already known \(recovery.alreadyKnown), refused \(recovery.refused)")
      print("  last call \(recovery.lastCallAt ?? "never"), last success \(recovery.lastSuccessAt ?? "never")")
      if let next = recovery.nextRunAt { print("  next run \(next)") }
      if let error = recovery.lastError { print("  last error: \(error)") }
    }
    if let test = status.testNotification {
      let arrived =
        test.receivedAt.map { "arrived \($0)" } ?? (test.error.map { "not sent: \($0)" } ?? "not arrived yet")
      print("TEST notification (\(test.environment)): requested \(test.requestedAt), \(arrived)")
    }
  }

  static func order(_ options: inout Options) throws {
    guard let orderId = options.positional() else { throw Failure("app-store order needs an ORDER_ID") }
    let name = try options.required("--app")
    let databasePath = options.databasePath
    let box = try CommandLineTool.secretsBox(&options, databasePath: databasePath)
    try options.finish()
    let api =
      ProcessInfo.processInfo.environment["TOLLGATE_APP_STORE_API_URL"].flatMap(URL.init(string:)).map {
        AppStoreServerClient(productionURL: $0)
      } ?? AppStoreServerClient()
    let store = try StoreLocation.open(databasePath, listenURL: options.databaseListenURL, connections: 1).database
    defer { store.close() }
    guard let app = try store.app(named: name) else {
      throw Failure.missing("no app named \(name); create it with: tollgate keys create --app \(name)")
    }
    let service = AppStoreServerService(database: store, secrets: box, time: SystemTimeSource(), api: api)
    let result = Mutex<Result<AppStoreOrder, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
      do {
        let found = try await service.lookUpOrder(appId: app.id, orderId: orderId)
        result.withLock { $0 = .success(found) }
      } catch {
        result.withLock { $0 = .failure(error) }
      }
      done.signal()
    }
    done.wait()
    let order: AppStoreOrder
    switch result.withLock({ $0 })! {
    case .success(let found): order = found
    case .failure(let error as DomainError): throw Failure(error.message)
    case .failure(let error): throw error
    }
    print("order \(order.orderId): \(order.transactions.count) transaction(s)")
    for transaction in order.transactions {
      print(
        "  \(transaction.transactionId) (original \(transaction.originalTransactionId)) \(transaction.productId), \(transaction.purchaseDate), \(transaction.environment)\(transaction.revoked ? ", refunded" : "") — "
          + (transaction.owners.isEmpty ? "no profile yet" : "profile " + transaction.owners.joined(separator: ", ")))
    }
  }

  static func testNotification(_ options: inout Options) throws {
    let environment = options.value("--environment", env: nil)
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    let status = try service.requestTestNotification(appId: app.id, environment: environment, by: "cli")
    print(
      "asked for a TEST notification of \(app.name) (\(status.testNotification?.environment ?? "")): a running server asks Apple within seconds; see tollgate app-store status"
    )
  }

  static func recover(_ options: inout Options) throws {
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    _ = try service.recoverNow(appId: app.id, by: "cli")
    print("the notification recovery of \(app.name) is due now: a running server starts it within seconds")
  }

  static func refresh(_ options: inout Options) throws {
    let profile = try options.required("--profile")
    let waitText = options.value("--wait", env: nil) ?? "30"
    guard let wait = Double(waitText), wait >= 0 else { throw Failure("--wait takes a number of seconds") }
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    var refresh: HistoryRefresh
    do { refresh = try service.requestHistoryRefresh(appId: app.id, profileId: profile, by: "cli") } catch let error
      as DomainError
    {
      throw Failure(error.message)
    }
    print("asked for the history of \(profile) (a running server asks Apple within seconds)")
    let deadline = Date().addingTimeInterval(wait)
    while ["requested", "running"].contains(refresh.status), Date() < deadline {
      Thread.sleep(forTimeInterval: 0.5)
      refresh = try service.historyRefresh(appId: app.id, profileId: profile) ?? refresh
    }
    switch refresh.status {
    case "done":
      print(
        "done: \(refresh.transactions) transaction(s) from Apple, \(refresh.changed) changed the profile, \(refresh.refused) refused"
          + refresh.revisions.sorted { $0.key < $1.key }.map { "; revision \($0.key): \($0.value)" }.joined())
    case "failed":
      throw Failure("the refresh failed: \(refresh.error ?? "")")
    default:
      print(
        "still \(refresh.status) after \(Int(wait)) s: is a server running on this database? See the console's profile page"
      )
    }
  }

  static func refundRequests(_ options: inout Options) throws {
    let from = options.value("--from", env: nil)
    let to = options.value("--to", env: nil)
    let format = options.value("--format", env: nil) ?? "table"
    guard ["table", "json"].contains(format) else { throw Failure("--format is table or json") }
    let (store, app, service) = try open(&options)
    defer { store.close() }
    try options.finish()
    let report: RefundRequestReport
    do { report = try service.refundRequests(appId: app.id, from: from, to: to) } catch let error as DomainError {
      throw Failure(error.message)
    }
    if format == "json" {
      print(String(decoding: WireCoding.encode(report), as: UTF8.self))
      return
    }
    print("refund requests of \(app.name), \(report.from) … \(report.to)")
    let header = [
      "", "requests", "answered", "not sent", "pending", "expired", "failed", "refunded", "declined", "open",
    ]
    func row(_ name: String, _ counts: RefundRequestReport.Counts) -> [String] {
      [name]
        + [
          counts.requests, counts.answered, counts.notSent, counts.pending, counts.expired, counts.failed,
          counts.refunded, counts.declined, counts.open,
        ].map(String.init)
    }
    var rows = [row("all", report.totals)]
    rows += report.byReason.map { row("reason " + ($0.key ?? ""), $0) }
    rows += report.byProduct.map { row("product " + ($0.key ?? ""), $0) }
    print(ReportTables.grid([header] + rows, title: "by reason and product"))
    for request in report.requests.prefix(20) {
      print(
        "  \(request.requestedAt) \(request.transactionId) \(request.productId) \(request.reason ?? "-"): \(request.status)"
          + (request.lastError.map { " (\($0))" } ?? "") + (request.outcome.map { ", \($0)" } ?? ", open"))
    }
  }
}
