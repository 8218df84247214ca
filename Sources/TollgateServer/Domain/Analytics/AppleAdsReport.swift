import Foundation

/// One Apple Ads campaign (ad group, keyword) over an install-day range.
public struct AppleAdsRow: Codable, Sendable, Hashable {
  public var campaignId: Int64
  public var adGroupId: Int64?
  /// 0 groups installs without a keyword (search match).
  public var keywordId: Int64?
  /// Profiles with Apple Ads attribution applied.
  public var installs: Int64
  /// Of those, how many got the Apple Ads-targeted flow on first launch before the timeout.
  public var aaFlowInTime: Int64
  public var aaFlowInTimeShare: Double?
  public var purchasers: Int64
  public var conversionRate: Double?
  /// Gross revenue by currency, in its units.
  public var revenue: [String: Double]
  /// In the reporting currency, when one is configured.
  public var reporting: ConvertedMoney?

  enum CodingKeys: String, CodingKey {
    case installs, purchasers, revenue, reporting
    case campaignId = "campaign_id"
    case adGroupId = "ad_group_id"
    case keywordId = "keyword_id"
    case aaFlowInTime = "aa_flow_in_time"
    case aaFlowInTimeShare = "aa_flow_in_time_share"
    case conversionRate = "conversion_rate"
  }
}

/// `GET /v1/admin/stats/apple-ads` and `tollgate report apple-ads`.
public struct AppleAdsReport: Codable, Sendable, Hashable {
  public var from: String
  public var to: String
  public var by: String
  public var reportingCurrency: String?
  public var rows: [AppleAdsRow]

  enum CodingKeys: String, CodingKey {
    case from, to, by, rows
    case reportingCurrency = "reporting_currency"
  }

  public static func build(
    days: ClosedRange<Int64>, by grouping: AppleAdsGrouping, counts: [AppleAdsCounts], config: CompiledConfig?
  ) -> AppleAdsReport {
    let reporting = config?.reporting
    let rows = counts.map { counts -> AppleAdsRow in
      let revenue = counts.revenue.mapValues { Double($0) / 1000 }
      let converted = reporting?.convert(gross: revenue, viewers: nil, purchasers: counts.purchasers)
      return AppleAdsRow(
        campaignId: counts.campaignId, adGroupId: counts.adGroupId, keywordId: counts.keywordId,
        installs: counts.installs, aaFlowInTime: counts.flowInTime,
        aaFlowInTimeShare: counts.installs > 0 ? Double(counts.flowInTime) / Double(counts.installs) : nil,
        purchasers: counts.purchasers,
        conversionRate: counts.installs > 0 ? Double(counts.purchasers) / Double(counts.installs) : nil,
        revenue: revenue, reporting: converted)
    }
    return AppleAdsReport(
      from: PlacementReport.isoDay(days.lowerBound), to: PlacementReport.isoDay(days.upperBound), by: grouping.rawValue,
      reportingCurrency: reporting?.currency, rows: rows)
  }
}

/// The `from`/`to` of a report: UTC days `YYYY-MM-DD`, both included; the last 30 days by default.
public enum ReportRange {
  public static let defaultDays: Int64 = 30

  /// The longest range a report covers (ten years).
  public static let maximumDays: Int64 = 3_660

  public static func days(from: String?, to: String?, now: Date) throws(DomainError) -> ClosedRange<Int64> {
    let last = try to.map { text throws(DomainError) in try day(text, name: "to") } ?? StatsDay.of(now)
    let first = try from.map { text throws(DomainError) in try day(text, name: "from") } ?? last - defaultDays + 1
    guard first <= last else { throw DomainError(.badParameter, "from (\(from ?? "")) is after to.") }
    guard last - first < maximumDays else {
      throw DomainError(.badParameter, "A report covers at most \(maximumDays) days.")
    }
    return first...last
  }

  static func day(_ text: String, name: String) throws(DomainError) -> Int64 {
    guard text.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) != nil,
      let date = try? Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day().parse(text)
    else { throw DomainError(.badParameter, "\(name) is a UTC day such as 2026-11-29.") }
    return StatsDay.of(date)
  }
}
