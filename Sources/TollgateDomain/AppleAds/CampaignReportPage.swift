import Foundation
import TollgateSupport

/// The body of a Campaign Management API report request (`ReportingRequest`): daily rows in
/// UTC — Tollgate's days — one page of at most 1 000 rows.
public struct ReportingRequestBody: Encodable, Sendable, Hashable {
  struct Selector: Encodable, Hashable {
    struct Order: Encodable, Hashable {
      var field: String
      var sortOrder = "ASCENDING"
    }
    struct Pagination: Encodable, Hashable {
      var offset: Int
      var limit: Int
    }
    var orderBy: [Order]
    var pagination: Pagination
  }
  var startTime: String
  var endTime: String
  var granularity = "DAILY"
  var timeZone = "UTC"
  var selector: Selector
  var returnRowTotals = false
  var returnGrandTotals = false
  var returnRecordsWithNoMetrics = false

  /// One page of `level` rows over `days`.
  public init(days: ClosedRange<Int64>, level: SpendLevel, offset: Int, limit: Int) {
    startTime = StatsDay.isoDay(days.lowerBound)
    endTime = StatsDay.isoDay(days.upperBound)
    let field: String
    switch level {
    case .campaign: field = "campaignId"
    case .adGroup: field = "adGroupId"
    case .keyword: field = "keywordId"
    }
    selector = Selector(orderBy: [Selector.Order(field: field)], pagination: .init(offset: offset, limit: limit))
  }
}

/// One page of a report as Apple answers it (`ReportingResponseBody`): rows of metadata
/// (ids, names) with a `granularity` list of daily metrics, and the paging.
public struct CampaignReportPage: Sendable, Hashable {
  /// The days' figures of every row.
  public var figures: [SpendFigure]
  /// The names the rows carry.
  public var names: [AdsEntityName]
  /// Rows the report has in all (every page).
  public var totalResults: Int
  /// Rows on this page.
  public var rowCount: Int
  /// Why each row that could not be read was left out (Search Match keyword rows can come back
  /// without a `keywordId`): one odd row must not hold back every other figure.
  public var skipped: [String] = []

  private struct Body: Decodable {
    struct DataBody: Decodable {
      var reportingDataResponse: Response
    }
    struct Response: Decodable {
      var row: [Row]?
    }
    struct Row: Decodable {
      var metadata: Metadata
      var granularity: [Day]?
    }
    struct Metadata: Decodable {
      var campaignId: Int64?
      var campaignName: String?
      var adGroupId: Int64?
      var adGroupName: String?
      var keywordId: Int64?
      var keyword: String?
    }
    struct Money: Decodable {
      var amount: String
      var currency: String
    }
    struct Day: Decodable {
      var date: String
      var impressions: Int64?
      var taps: Int64?
      var tapInstalls: Int64?
      var totalInstalls: Int64?
      var localSpend: Money?
    }
    struct Paging: Decodable {
      var totalResults: Int
    }
    var data: DataBody?
    var pagination: Paging?
  }

  /// Reads a page of `level` rows; `campaignId` is the campaign the request was for (ad group
  /// and keyword reports are per campaign). Throws on a body that is not Apple's shape; a row
  /// without the ids its level needs, or with a day or an amount that does not read, is left
  /// out and named in `skipped`.
  public static func decode(_ data: Data, level: SpendLevel, campaignId: Int64? = nil) throws(AppleAdsAPIError)
    -> CampaignReportPage
  {
    let body: Body
    do {
      body = try JSONDecoder().decode(Body.self, from: data)
    } catch {
      throw .unexpected("the report is not in Apple's format: \(error)")
    }
    let rows = body.data?.reportingDataResponse.row ?? []
    var figures: [SpendFigure] = []
    var names: [AdsEntityName] = []
    var skipped: [String] = []
    for (index, row) in rows.enumerated() {
      switch read(row, level: level, campaignId: campaignId) {
      case .success(let read):
        figures += read.figures
        names += read.names
      case .failure(let reason):
        skipped.append("\(level.rawValue) row \(index + 1): \(reason.message)")
      }
    }
    return CampaignReportPage(
      figures: figures, names: names, totalResults: body.pagination?.totalResults ?? rows.count, rowCount: rows.count,
      skipped: skipped)
  }

  /// Why a row was left out.
  private struct Unreadable: Error {
    var message: String
  }

  /// One row's days and names, or why it cannot be read.
  private static func read(_ row: Body.Row, level: SpendLevel, campaignId: Int64?) -> Result<
    (figures: [SpendFigure], names: [AdsEntityName]), Unreadable
  > {
    let meta = row.metadata
    guard let campaign = meta.campaignId ?? campaignId else { return .failure(Unreadable(message: "no campaignId")) }
    let adGroup = level == .campaign ? 0 : meta.adGroupId ?? 0
    let keyword = level == .keyword ? meta.keywordId ?? 0 : 0
    guard level == .campaign || adGroup != 0 else { return .failure(Unreadable(message: "no adGroupId")) }
    guard level != .keyword || keyword != 0 else {
      return .failure(Unreadable(message: "no keywordId (keyword \(meta.keyword.map { "\"\($0)\"" } ?? "unnamed"))"))
    }
    var names: [AdsEntityName] = []
    if let name = meta.campaignName { names.append(AdsEntityName(level: .campaign, id: campaign, name: name)) }
    if let name = meta.adGroupName, adGroup != 0 {
      names.append(AdsEntityName(level: .adGroup, id: adGroup, name: name))
    }
    if let text = meta.keyword, keyword != 0 { names.append(AdsEntityName(level: .keyword, id: keyword, name: text)) }
    var figures: [SpendFigure] = []
    for day in row.granularity ?? [] {
      guard let number = StatsDay.parseISODay(day.date) else {
        return .failure(Unreadable(message: "the day \(day.date) is not YYYY-MM-DD"))
      }
      var spend: Int64 = 0
      var currency = ""
      if let money = day.localSpend {
        guard let amount = MoneyText.thousandths(money.amount), money.currency.count == 3 else {
          return .failure(Unreadable(message: "localSpend \(money.amount) \(money.currency) is not an amount"))
        }
        spend = amount
        currency = money.currency
      }
      figures.append(
        SpendFigure(
          level: level, day: number, campaignId: campaign, adGroupId: adGroup, keywordId: keyword,
          currency: currency, spend: spend, impressions: day.impressions ?? 0, taps: day.taps ?? 0,
          tapInstalls: day.tapInstalls ?? 0, totalInstalls: day.totalInstalls ?? 0))
    }
    return .success((figures, names))
  }
}

/// Decimal amounts as text ("12.34", Apple's `Money.amount`, a spreadsheet's cell) in
/// thousandths, exactly: no binary floating point on the way.
public enum MoneyText {
  /// "12.3456" → 12346 (half away from zero); nil for anything that is not a plain decimal.
  public static func thousandths(_ text: String) -> Int64? {
    var digits = text.trimmingCharacters(in: .whitespaces)
    var negative = false
    if digits.hasPrefix("-") {
      negative = true
      digits.removeFirst()
    }
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty, whole.count <= 15,
      whole.allSatisfy(\.isASCIIDigitCharacter), let units = Int64(whole)
    else { return nil }
    var fraction = parts.count == 2 ? String(parts[1]) : ""
    guard fraction.allSatisfy(\.isASCIIDigitCharacter), parts.count == 1 || !fraction.isEmpty else { return nil }
    fraction += "0000"
    let first = fraction.prefix(3)
    let next = fraction.dropFirst(3).first!
    var value = units * 1000 + Int64(first)!
    if next >= "5" { value += 1 }
    return negative ? -value : value
  }
}

extension Character {
  fileprivate var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}
