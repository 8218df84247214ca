import Foundation
import Synchronization
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// A local stand-in for Apple Ads' Campaign Management API (v5 reports) and Apple's OAuth
/// token endpoint, for tests, the demo and benchmarks — never for production.
///
/// - `POST /auth/oauth2/token` checks the client secret as Apple does: an ES256 JWT whose
///   signature verifies with the registered public key, header `kid`, claims `sub` (client
///   id), `iss` (team id), `aud`, `iat`, `exp` at most 180 days after `iat`, not expired.
///   It answers `{access_token, token_type, expires_in: 3600, scope}` or 400 `invalid_client`.
/// - `POST /api/v5/reports/campaigns`, `…/campaigns/{id}/adgroups`, `…/campaigns/{id}/keywords`
///   answer daily rows of a deterministic catalog (names, spend in the organization's
///   currency, impressions, taps, installs), paged by `selector.pagination`; 401 for an
///   unknown or expired token, 403 for another organization, 400 for a request Apple refuses
///   (not DAILY, more than 90 days, starting more than 90 days back, a limit above 1 000).
/// - `revise()` changes the figures of the last three days (Apple revises recent days);
///   `fail(next:status:retryAfter:)` makes report calls fail; `expireTokens()` turns every
///   access token into a 401; `maximumPageSize` forces page boundaries.
public final class AppleAdsCampaignSandbox: Sendable {
  /// A keyword of an ad group.
  public struct Keyword: Sendable, Hashable {
    public var id: Int64
    public var text: String
    public init(id: Int64, text: String) {
      self.id = id
      self.text = text
    }
  }

  /// An ad group: its keywords; `searchMatch` adds spend no keyword carries.
  public struct AdGroup: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var keywords: [Keyword]
    public var searchMatch: Bool
    public init(id: Int64, name: String, keywords: [Keyword], searchMatch: Bool = false) {
      self.id = id
      self.name = name
      self.keywords = keywords
      self.searchMatch = searchMatch
    }
  }

  /// A campaign of an organization.
  public struct Campaign: Sendable, Hashable {
    public var id: Int64
    public var name: String
    public var adGroups: [AdGroup]
    public init(id: Int64, name: String, adGroups: [AdGroup]) {
      self.id = id
      self.name = name
      self.adGroups = adGroups
    }
  }

  /// An API client as Apple Ads knows it after the operator uploaded a public key.
  public struct Client: Sendable, Hashable {
    public var clientId: String
    public var teamId: String
    public var keyId: String
    public var publicKeyPEM: String
    public var orgId: Int64
    /// The organization's currency: every `localSpend` is in it.
    public var currency: String
    public var campaigns: [Campaign]
    /// Every daily figure is multiplied by it (the demo's install volume needs more than 1).
    public var volume: Int64
    public init(
      clientId: String, teamId: String, keyId: String, publicKeyPEM: String, orgId: Int64, currency: String,
      campaigns: [Campaign] = AppleAdsCampaignSandbox.demoCampaigns, volume: Int64 = 1
    ) {
      self.volume = volume
      self.clientId = clientId
      self.teamId = teamId
      self.keyId = keyId
      self.publicKeyPEM = publicKeyPEM
      self.orgId = orgId
      self.currency = currency
      self.campaigns = campaigns
    }
  }

  /// The campaigns the attribution stand-in's demo tokens name: a brand campaign with two
  /// keywords and search match, a generic campaign with one keyword.
  public static let demoCampaigns = [
    Campaign(
      id: 542_370_539, name: "Brand — US",
      adGroups: [
        AdGroup(
          id: 542_370_600, name: "Brand exact",
          keywords: [Keyword(id: 700_001, text: "tollgate"), Keyword(id: 700_002, text: "tollgate app")]),
        AdGroup(id: 542_370_601, name: "Brand discovery", keywords: [], searchMatch: true),
      ]),
    Campaign(
      id: 611_000_001, name: "Generic — paywall",
      adGroups: [
        AdGroup(id: 611_000_002, name: "Competitors", keywords: [Keyword(id: 700_100, text: "paywall builder")])
      ]),
  ]

  private struct Token {
    var client: Client
    var expiresAt: Date
  }
  private struct Fault {
    var status: Int
    var retryAfter: Int?
  }
  private struct State {
    var clients: [String: Client] = [:]
    var tokens: [String: Token] = [:]
    /// Report calls to come: nil passes, a fault fails.
    var faults: [Fault?] = []
    var revision = 0
    var reportCalls: [String] = []
    var tokenRequests = 0
    var secrets: Set<String> = []
  }

  private let state = Mutex(State())
  private let listener = StandInListener()
  private let clock: @Sendable () -> Date
  private let pageCap: Mutex<Int> = Mutex(1_000)
  private let searchMatchRows = Mutex(false)
  /// Report calls answered before the rest are held, and the answers held.
  private let gate = Mutex<(after: Int?, held: [DeferredResponse])>((nil, []))
  /// Signalled once for each answer held: a test waits on it instead of polling from a task,
  /// which on a busy machine can wake after the held call has timed out.
  private let heldSignal = DispatchSemaphore(value: 0)

  /// A stand-in; `clock` is its "now" (what tokens expire against and what "today" is).
  public init(clock: @escaping @Sendable () -> Date = { Date() }) { self.clock = clock }

  /// Registers an API client (what uploading a public key in Apple Ads does).
  public func register(_ client: Client) { state.withLock { $0.clients[client.clientId] = client } }

  /// Listens on `host:port` (0 picks a port); returns the base URL: the API is under
  /// `api/v5/` (`--apple-ads-api-url`), the token endpoint under `auth/oauth2/token` (`--apple-id-url`).
  public func start(host: String = "127.0.0.1", port: UInt16 = 0) throws -> URL {
    let bound = try listener.start(host: host, port: port) { [self] request in answer(request) }
    return URL(string: "http://\(host):\(bound)/")!
  }

  /// Stops listening.
  public func stop() { listener.stop() }

  /// Changes the figures of the last three days, as Apple's revisions do.
  public func revise() { state.withLock { $0.revision += 1 } }

  /// After `after` more report calls pass, the next `count` answer `status` (with `Retry-After` when given).
  public func fail(next count: Int, status: Int, retryAfter: Int? = nil, after: Int = 0) {
    state.withLock {
      $0.faults =
        Array(repeating: nil, count: after)
        + Array(repeating: Fault(status: status, retryAfter: retryAfter), count: count)
    }
  }

  /// Every access token issued so far answers 401 from now on.
  public func expireTokens() { state.withLock { $0.tokens.removeAll() } }

  /// Rows per page at most, whatever the request's limit (forces page boundaries).
  public var maximumPageSize: Int {
    get { pageCap.withLock { $0 } }
    set { pageCap.withLock { $0 = newValue } }
  }

  /// Keyword reports also carry the search-match spend of ad groups that have it, as rows
  /// without a `keywordId` (Apple's keyword reports can): a row no importer can key.
  public var searchMatchKeywordRows: Bool {
    get { searchMatchRows.withLock { $0 } }
    set { searchMatchRows.withLock { $0 = newValue } }
  }

  /// Answers the next `count` report calls, then holds every later answer until `release()`:
  /// a process test kills the server while it waits for a page.
  public func hold(after count: Int) { gate.withLock { $0.after = reportCalls.count + count } }

  /// Waits until an answer is held (`hold(after:)`), at most `timeout` seconds; false when none was.
  public func waitForHeldAnswer(timeout: Double) -> Bool {
    heldSignal.wait(timeout: .now() + timeout) == .success
  }

  /// Sends the held answers and stops holding.
  public func release() {
    let held = gate.withLock { gate -> [DeferredResponse] in
      defer { gate = (nil, []) }
      return gate.held
    }
    for deferred in held { deferred.complete(Self.apiError(503, "UNAVAILABLE", "Released")) }
  }

  /// The report paths called so far, in order.
  public var reportCalls: [String] { state.withLock { $0.reportCalls } }

  /// Different client secrets that obtained a token so far.
  public var clientSecretsSeen: Int { state.withLock { $0.secrets.count } }

  /// Token requests answered 200 so far.
  public var tokensIssued: Int { state.withLock { $0.tokenRequests } }

  /// Every figure Apple Ads would report for `client` over `days` (all three levels): what a
  /// test compares Tollgate's stored spend and reports with.
  public func truth(_ client: Client, days: ClosedRange<Int64>) -> [SpendFigure] {
    let revision = state.withLock { $0.revision }
    let today = StatsDay.of(clock())
    return days.flatMap { day in figures(client, day: day, revision: revision, today: today) }
      .filter { $0.level != .keyword || $0.keywordId != 0 }
  }

  /// The complete days before today Apple still revises (today, incomplete, changes too).
  public static let revisedDays: Int64 = 3

  // MARK: - Figures

  private func figures(_ client: Client, day: Int64, revision: Int, today: Int64) -> [SpendFigure] {
    guard day <= today else { return [] }
    // Days Apple may still revise carry the revision in their seed.
    let version = day >= today - Self.revisedDays ? revision : 0
    var result: [SpendFigure] = []
    for campaign in client.campaigns {
      var campaignTotal = SpendFigure(
        level: .campaign, day: day, campaignId: campaign.id, currency: client.currency, spend: 0)
      for group in campaign.adGroups {
        var groupTotal = SpendFigure(
          level: .adGroup, day: day, campaignId: campaign.id, adGroupId: group.id, currency: client.currency, spend: 0)
        var parts = group.keywords.map { keyword in
          Self.figure(
            seed: [keyword.id, day, Int64(version)], volume: client.volume,
            SpendFigure(
              level: .keyword, day: day, campaignId: campaign.id, adGroupId: group.id, keywordId: keyword.id,
              currency: client.currency, spend: 0))
        }
        result += parts
        if group.searchMatch {
          let searchMatch = Self.figure(seed: [group.id, day, Int64(version), 7], volume: client.volume, groupTotal)
          parts.append(searchMatch)
          if searchMatchKeywordRows {
            var row = searchMatch
            row.level = .keyword
            result.append(row)
          }
        }
        for part in parts { Self.add(part, to: &groupTotal) }
        result.append(groupTotal)
        Self.add(groupTotal, to: &campaignTotal)
      }
      result.append(campaignTotal)
    }
    return result
  }

  private static func add(_ part: SpendFigure, to total: inout SpendFigure) {
    total.spend += part.spend
    total.impressions += part.impressions
    total.taps += part.taps
    total.tapInstalls += part.tapInstalls
    total.totalInstalls += part.totalInstalls
  }

  /// Deterministic daily figures from a seed: spend in cents (as Apple's amounts have two decimals).
  private static func figure(seed: [Int64], volume: Int64, _ base: SpendFigure) -> SpendFigure {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for value in seed {
      for shift in stride(from: 0, to: 64, by: 8) {
        hash = (hash ^ UInt64((value >> Int64(shift)) & 0xff)) &* 0x100_0000_01b3
      }
    }
    var figure = base
    figure.impressions = Int64(200 + hash % 800) * volume
    figure.taps = Int64(10 + (hash >> 10) % 40) * volume
    figure.tapInstalls = Int64(2 + (hash >> 20) % 8) * volume
    figure.totalInstalls = figure.tapInstalls + Int64((hash >> 30) % 3) * volume
    figure.spend = Int64(500 + (hash >> 40) % 2_500) * 10 * volume
    return figure
  }

  // MARK: - HTTP

  /// Answers one request as Apple would.
  public func answer(_ request: Request) -> Response {
    guard request.method == "POST" else { return Response(status: 405) }
    if request.path == "/auth/oauth2/token" { return token(request) }
    let parts = request.path.split(separator: "/").map(String.init)
    guard parts.count >= 4, parts[0] == "api", parts[1] == "v5", parts[2] == "reports", parts[3] == "campaigns" else {
      return Self.apiError(404, "NOT_FOUND", "No such resource")
    }
    var level = SpendLevel.campaign
    var campaignId: Int64?
    if parts.count == 6, let id = Int64(parts[4]), ["adgroups", "keywords"].contains(parts[5]) {
      level = parts[5] == "adgroups" ? .adGroup : .keyword
      campaignId = id
    } else if parts.count != 4 {
      return Self.apiError(404, "NOT_FOUND", "No such resource")
    }
    let response = report(request, level: level, campaignId: campaignId)
    let calls = reportCalls.count
    let held = gate.withLock { gate -> DeferredResponse? in
      guard let after = gate.after, calls > after else { return nil }
      let deferred = DeferredResponse()
      gate.held.append(deferred)
      return deferred
    }
    if let held {
      heldSignal.signal()
      return .deferred(held)
    }
    return response
  }

  private func token(_ request: Request) -> Response {
    guard request.header("content-type")?.hasPrefix("application/x-www-form-urlencoded") == true else {
      return Self.oauthError("invalid_request")
    }
    // Apple's documented example sends the fields in the URL's query; OAuth clients send a
    // form body (RFC 6749): both are read.
    var form = request.query.dictionary
    for item in URLComponents(string: "?" + String(decoding: request.body, as: UTF8.self))?.queryItems ?? [] {
      form[item.name] = item.value ?? ""
    }
    guard form["grant_type"] == "client_credentials" else { return Self.oauthError("unsupported_grant_type") }
    guard form["scope"] == "searchadsorg" else { return Self.oauthError("invalid_scope") }
    guard let clientId = form["client_id"], let client = state.withLock({ $0.clients[clientId] }),
      let secret = form["client_secret"], Self.verify(secret: secret, client: client, now: clock())
    else { return Self.oauthError("invalid_client") }
    let token = "sbx-" + UUID().uuidString.lowercased()
    state.withLock {
      $0.tokens[token] = Token(client: client, expiresAt: clock().addingTimeInterval(3_600))
      $0.tokenRequests += 1
      $0.secrets.insert(secret)
    }
    let answer: [String: Any] = [
      "access_token": token, "token_type": "Bearer", "expires_in": 3_600, "scope": "searchadsorg",
    ]
    return .json(bytes: (try? JSONSerialization.data(withJSONObject: answer)) ?? Data())
  }

  /// The client secret's checks, in the order Apple's documentation lists them.
  public static func verify(secret: String, client: Client, now: Date) -> Bool {
    guard let jws = CompactJWS(secret),
      let header = try? JSONSerialization.jsonObject(with: jws.header) as? [String: Any],
      let claims = try? JSONSerialization.jsonObject(with: jws.payload) as? [String: Any],
      header["alg"] as? String == "ES256", header["kid"] as? String == client.keyId,
      claims["sub"] as? String == client.clientId, claims["iss"] as? String == client.teamId,
      claims["aud"] as? String == ClientSecret.audience,
      let issued = (claims["iat"] as? NSNumber)?.doubleValue, let expires = (claims["exp"] as? NSNumber)?.doubleValue,
      issued <= now.timeIntervalSince1970 + 60, expires > now.timeIntervalSince1970,
      expires - issued <= ClientSecret.maximumLifetime,
      let key = try? ECKey(publicPEM: client.publicKeyPEM)
    else { return false }
    return key.verifyES256(signature: jws.signature, over: jws.signingInput)
  }

  private func report(_ request: Request, level: SpendLevel, campaignId: Int64?) -> Response {
    let now = clock()
    let (fault, token) = state.withLock { state -> (Fault?, Token?) in
      state.reportCalls.append(request.path)
      let fault: Fault? = state.faults.isEmpty ? nil : state.faults.removeFirst()
      let bearer = request.header("authorization").flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
      return (fault, bearer.flatMap { state.tokens[$0] })
    }
    if let fault {
      var response = Self.apiError(
        fault.status, fault.status == 429 ? "RATE_LIMIT_EXCEEDED" : "SERVER_ERROR", "Injected fault")
      if let wait = fault.retryAfter { response.headers.append(("Retry-After", String(wait))) }
      return response
    }
    guard let token, token.expiresAt > now else {
      return Self.apiError(401, "UNAUTHORIZED", "Invalid or expired access token")
    }
    guard request.header("x-ap-context") == "orgId=\(token.client.orgId)" else {
      return Self.apiError(403, "FORBIDDEN", "A required header was not specified or was invalid.")
    }
    guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
      let startText = body["startTime"] as? String, let endText = body["endTime"] as? String,
      let start = StatsDay.parseISODay(startText), let end = StatsDay.parseISODay(endText), start <= end
    else { return Self.apiError(400, "INVALID_INPUT", "startTime and endTime are YYYY-MM-DD", field: "startTime") }
    let today = StatsDay.of(now)
    guard body["granularity"] as? String == "DAILY" else {
      return Self.apiError(400, "INVALID_INPUT", "granularity must be DAILY here", field: "granularity")
    }
    guard end - start < 90, start >= today - 90 else {
      return Self.apiError(
        400, "INVALID_DATE_RANGE", "DAILY covers at most 90 days starting at most 90 days back", field: "startTime")
    }
    let pagination = (body["selector"] as? [String: Any])?["pagination"] as? [String: Any]
    let offset = (pagination?["offset"] as? NSNumber)?.intValue ?? 0
    let limit = (pagination?["limit"] as? NSNumber)?.intValue ?? 20
    guard limit >= 1, limit <= 1_000, offset >= 0 else {
      return Self.apiError(400, "INVALID_INPUT", "limit is 1–1000", field: "selector.pagination.limit")
    }
    let client = token.client
    let revision = state.withLock { $0.revision }
    let all = (start...end).flatMap { figures(client, day: $0, revision: revision, today: today) }
      .filter { $0.level == level && (campaignId == nil || $0.campaignId == campaignId) }
    let grouped = Dictionary(grouping: all) { [$0.campaignId, $0.adGroupId, $0.keywordId] }
    let keys = grouped.keys.sorted { $0.lexicographicallyPrecedes($1) }
    let page = keys.dropFirst(offset).prefix(min(limit, maximumPageSize))
    let rows: [[String: Any]] = page.map { key in
      let days = grouped[key]!.sorted { $0.day < $1.day }
      return [
        "metadata": metadata(client, level: level, key: key),
        "granularity": days.map { figure -> [String: Any] in
          [
            "date": StatsDay.isoDay(figure.day), "impressions": figure.impressions, "taps": figure.taps,
            "tapInstalls": figure.tapInstalls, "totalInstalls": figure.totalInstalls,
            "localSpend": ["amount": Self.amount(figure.spend), "currency": figure.currency],
          ]
        },
      ]
    }
    let response: [String: Any] = [
      "data": ["reportingDataResponse": ["row": rows]],
      "pagination": ["totalResults": keys.count, "startIndex": offset, "itemsPerPage": rows.count],
      "error": NSNull(),
    ]
    return .json(bytes: (try? JSONSerialization.data(withJSONObject: response, options: [.sortedKeys])) ?? Data())
  }

  private func metadata(_ client: Client, level: SpendLevel, key: [Int64]) -> [String: Any] {
    let campaign = client.campaigns.first { $0.id == key[0] }
    let group = campaign?.adGroups.first { $0.id == key[1] }
    switch level {
    case .campaign:
      return ["campaignId": key[0], "campaignName": campaign?.name ?? "", "orgId": client.orgId]
    case .adGroup:
      return ["campaignId": key[0], "adGroupId": key[1], "adGroupName": group?.name ?? "", "orgId": client.orgId]
    case .keyword where key[2] == 0:
      return [
        "campaignId": key[0], "adGroupId": key[1], "adGroupName": group?.name ?? "", "matchType": "AUTO",
        "orgId": client.orgId,
      ]
    case .keyword:
      return [
        "campaignId": key[0], "adGroupId": key[1], "adGroupName": group?.name ?? "", "keywordId": key[2],
        "keyword": group?.keywords.first { $0.id == key[2] }?.text ?? "", "matchType": "EXACT",
        "orgId": client.orgId,
      ]
    }
  }

  /// Thousandths (always whole cents here) as Apple's amount text, e.g. "12.30".
  static func amount(_ thousandths: Int64) -> String {
    let cents = thousandths / 10
    let fraction = String(cents % 100)
    return "\(cents / 100).\(fraction.count == 1 ? "0" + fraction : fraction)"
  }

  static func oauthError(_ code: String) -> Response { .json(["error": code], status: 400) }

  static func apiError(_ status: Int, _ code: String, _ message: String, field: String = "") -> Response {
    let body: [String: Any] = [
      "data": NSNull(), "pagination": NSNull(),
      "error": ["errors": [["messageCode": code, "message": message, "field": field]]],
    ]
    return .json(bytes: (try? JSONSerialization.data(withJSONObject: body)) ?? Data(), status: status)
  }
}
