import Foundation
import TollgateDomain
import TollgateSupport

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The App Store Server API calls Tollgate makes; tests and the development tools stand in.
public protocol AppStoreServerAPI: Sendable {
  /// One page of Get Notification History (`POST /inApps/v1/notifications/history`) in
  /// `environment` (`Production` or `Sandbox`), with a bearer `token`.
  func notificationHistory(
    environment: String, token: String, request: NotificationHistoryRequest, paginationToken: String?
  ) async throws(AppStoreServerAPIError) -> NotificationHistoryPage

  /// Asks Apple to send a TEST notification to the app's notification URL
  /// (`POST /inApps/v1/notifications/test`); returns Apple's `testNotificationToken`.
  func requestTestNotification(environment: String, token: String) async throws(AppStoreServerAPIError) -> String

  /// Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`, Production only): Apple's `status`
  /// (0 valid, 1 invalid) and the order's signed transactions.
  func lookUpOrder(_ orderId: String, token: String) async throws(AppStoreServerAPIError) -> OrderLookupAnswer

  /// Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`): the last
  /// transaction of each subscription in the customer's groups.
  func subscriptionStatuses(environment: String, transactionId: String, token: String)
    async throws(AppStoreServerAPIError) -> SubscriptionStatusesAnswer

  /// One page of Get Transaction History (`GET /inApps/v2/history/{transactionId}`, ascending):
  /// the customer's transactions, from `revision` when given.
  func transactionHistory(environment: String, transactionId: String, revision: String?, token: String)
    async throws(AppStoreServerAPIError) -> TransactionHistoryPage

  /// Send Consumption Information (`PUT /inApps/v2/transactions/consumption/{transactionId}`):
  /// the answer to a refund request; Apple answers 202.
  func sendConsumptionInformation(
    environment: String, transactionId: String, _ body: ConsumptionInformation, token: String
  ) async throws(AppStoreServerAPIError)
}

/// One page of Get Transaction History.
public struct TransactionHistoryPage: Decodable, Sendable, Hashable {
  /// Where the next page (or, once `hasMore` is false, the next changes) start.
  public var revision: String
  public var hasMore: Bool
  public var signedTransactions: [String]?

  public init(revision: String, hasMore: Bool, signedTransactions: [String]?) {
    self.revision = revision
    self.hasMore = hasMore
    self.signedTransactions = signedTransactions
  }
}

/// What Get All Subscription Statuses answers.
public struct SubscriptionStatusesAnswer: Decodable, Sendable, Hashable {
  /// One subscription's last transaction: status 1 active, 2 expired, 3 billing retry, 4 grace
  /// period, 5 revoked.
  public struct LastTransaction: Decodable, Sendable, Hashable {
    public var originalTransactionId: String
    public var status: Int
    public var signedTransactionInfo: String
    public var signedRenewalInfo: String?
  }

  /// One subscription group.
  public struct Group: Decodable, Sendable, Hashable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransaction]
  }

  public var data: [Group]
}

/// What Look Up Order ID answers.
public struct OrderLookupAnswer: Decodable, Sendable, Hashable {
  /// 0: valid; 1: invalid.
  public var status: Int
  public var signedTransactions: [String]?

  public init(status: Int, signedTransactions: [String]?) {
    self.status = status
    self.signedTransactions = signedTransactions
  }
}

/// Apple's App Store Server API over HTTPS: the Production or Sandbox host by environment.
public struct AppStoreServerClient: AppStoreServerAPI {
  /// Apple's Production host.
  public static let productionURL = URL(string: "https://api.storekit.apple.com/")!
  /// Apple's Sandbox host.
  public static let sandboxURL = URL(string: "https://api.storekit-sandbox.apple.com/")!

  let productionURL: URL
  let sandboxURL: URL
  let session: URLSession

  /// A client of the two hosts (`--app-store-api-url`, `--app-store-sandbox-api-url`).
  public init(productionURL: URL = productionURL, sandboxURL: URL = sandboxURL, timeout: TimeInterval = 30) {
    self.productionURL = productionURL
    self.sandboxURL = sandboxURL
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  public func notificationHistory(
    environment: String, token: String, request body: NotificationHistoryRequest, paginationToken: String?
  ) async throws(AppStoreServerAPIError) -> NotificationHistoryPage {
    let base = environment == "Production" ? productionURL : sandboxURL
    var components = URLComponents(
      url: base.appendingPathComponent("inApps/v1/notifications/history"), resolvingAgainstBaseURL: false)!
    if let paginationToken { components.queryItems = [URLQueryItem(name: "paginationToken", value: paginationToken)] }
    var request = URLRequest(url: components.url!)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    request.httpBody = try? JSONEncoder().encode(body)
    let (status, headers, data) = try await send(request)
    guard status == 200 else { throw Self.failure(status: status, headers: headers, data: data) }
    do {
      return try JSONDecoder().decode(NotificationHistoryPage.self, from: data)
    } catch {
      throw .unexpected("Get Notification History answered 200 with a body that is not a page: \(error)")
    }
  }

  public func requestTestNotification(environment: String, token: String) async throws(AppStoreServerAPIError)
    -> String
  {
    let base = environment == "Production" ? productionURL : sandboxURL
    var request = URLRequest(url: base.appendingPathComponent("inApps/v1/notifications/test"))
    request.httpMethod = "POST"
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (status, headers, data) = try await send(request)
    guard status == 200 else { throw Self.failure(status: status, headers: headers, data: data) }
    struct Answer: Decodable { var testNotificationToken: String }
    guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
      throw .unexpected("Request a Test Notification answered 200 without a testNotificationToken")
    }
    return answer.testNotificationToken
  }

  public func lookUpOrder(_ orderId: String, token: String) async throws(AppStoreServerAPIError)
    -> OrderLookupAnswer
  {
    let path = "inApps/v1/lookup/" + (orderId.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? orderId)
    var request = URLRequest(url: productionURL.appendingPathComponent(path))
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (status, headers, data) = try await send(request)
    guard status == 200 else { throw Self.failure(status: status, headers: headers, data: data) }
    guard let answer = try? JSONDecoder().decode(OrderLookupAnswer.self, from: data) else {
      throw .unexpected("Look Up Order ID answered 200 without a status")
    }
    return answer
  }

  public func subscriptionStatuses(environment: String, transactionId: String, token: String)
    async throws(AppStoreServerAPIError) -> SubscriptionStatusesAnswer
  {
    let base = environment == "Production" ? productionURL : sandboxURL
    var request = URLRequest(url: base.appendingPathComponent("inApps/v1/subscriptions/" + transactionId))
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (status, headers, data) = try await send(request)
    guard status == 200 else { throw Self.failure(status: status, headers: headers, data: data) }
    do {
      return try JSONDecoder().decode(SubscriptionStatusesAnswer.self, from: data)
    } catch {
      throw .unexpected("Get All Subscription Statuses answered 200 with a body that is not one: \(error)")
    }
  }

  public func transactionHistory(environment: String, transactionId: String, revision: String?, token: String)
    async throws(AppStoreServerAPIError) -> TransactionHistoryPage
  {
    let base = environment == "Production" ? productionURL : sandboxURL
    var components = URLComponents(
      url: base.appendingPathComponent("inApps/v2/history/" + transactionId), resolvingAgainstBaseURL: false)!
    components.queryItems =
      [URLQueryItem(name: "sort", value: "ASCENDING")]
      + (revision.map { [URLQueryItem(name: "revision", value: $0)] } ?? [])
    var request = URLRequest(url: components.url!)
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (status, headers, data) = try await send(request)
    guard status == 200 else { throw Self.failure(status: status, headers: headers, data: data) }
    do {
      return try JSONDecoder().decode(TransactionHistoryPage.self, from: data)
    } catch {
      throw .unexpected("Get Transaction History answered 200 with a body that is not a page: \(error)")
    }
  }

  public func sendConsumptionInformation(
    environment: String, transactionId: String, _ body: ConsumptionInformation, token: String
  ) async throws(AppStoreServerAPIError) {
    let base = environment == "Production" ? productionURL : sandboxURL
    var request = URLRequest(url: base.appendingPathComponent("inApps/v2/transactions/consumption/" + transactionId))
    request.httpMethod = "PUT"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    request.httpBody = try? JSONEncoder().encode(body)
    let (status, headers, data) = try await send(request)
    guard (200..<300).contains(status) else { throw Self.failure(status: status, headers: headers, data: data) }
  }

  private func send(_ request: URLRequest) async throws(AppStoreServerAPIError) -> (Int, [String: String], Data) {
    do {
      let (data, response) = try await session.dataRetryingClosedConnection(for: request)
      guard let http = response as? HTTPURLResponse else { throw AppStoreServerAPIError.unavailable("no HTTP answer") }
      var headers: [String: String] = [:]
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
      }
      return (http.statusCode, headers, data)
    } catch let error as AppStoreServerAPIError {
      throw error
    } catch {
      throw .unavailable("transport: \(error.localizedDescription)")
    }
  }

  /// A non-200 answer, by what to do about it: Apple's `{errorCode, errorMessage}` when it sent one.
  static func failure(status: Int, headers: [String: String], data: Data) -> AppStoreServerAPIError {
    struct Body: Decodable {
      var errorCode: Int?
      var errorMessage: String?
    }
    let body = try? JSONDecoder().decode(Body.self, from: data)
    let said = body.map { " (\($0.errorCode.map(String.init) ?? "-") \($0.errorMessage ?? ""))" } ?? ""
    switch status {
    case 401, 403:
      return .credentials(
        "Apple answered \(status)\(said): check the issuer id, the key id, the bundle id and that the In-App Purchase key is active"
      )
    case 429:
      let until = headers["retry-after"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }.map {
        Date(timeIntervalSince1970: $0 / 1000)
      }
      return .rateLimited(until: until, "Apple answered 429\(said)")
    case 500...:
      return .unavailable("Apple answered \(status)\(said)")
    default:
      if body?.errorCode == 5_000_001 { return .unavailable("Apple answered \(status)\(said)") }
      return .rejected(code: body?.errorCode, "Apple answered \(status)\(said)")
    }
  }
}
