import Foundation
import TollgateSupport

/// One Apple Ads campaign (ad group, keyword) over an install-day range: what Tollgate saw
/// (attributed installs, first-launch targeting, purchases, cohort revenue) beside what Apple
/// Ads reports (names, spend, its own installs), and what one earns on the other.
public struct AppleAdsRow: Codable, Sendable, Hashable {
  public var campaignId: Int64
  public var adGroupId: Int64?
  /// 0 groups installs without a keyword (search match).
  public var keywordId: Int64?
  /// Apple Ads' names, once spend was imported (the keyword's text for keywords).
  public var campaignName: String?
  public var adGroupName: String?
  public var keyword: String?
  /// Profiles with Apple Ads attribution applied.
  public var installs: Int64
  /// Of those, how many got the Apple Ads-targeted flow on first launch before the timeout.
  public var aaFlowInTime: Int64
  public var aaFlowInTimeShare: Double?
  public var purchasers: Int64
  public var conversionRate: Double?
  /// Gross revenue by currency, in its units.
  public var revenue: [String: Money]
  /// In the reporting currency, when one is configured.
  public var reporting: ConvertedMoney?
  /// Apple Ads' own figures and what the installs cost and returned (nil without imported spend).
  public var spend: AppleAdsSpendFigures?

  enum CodingKeys: String, CodingKey {
    case installs, purchasers, revenue, reporting, keyword, spend
    case campaignId = "campaign_id"
    case adGroupId = "ad_group_id"
    case keywordId = "keyword_id"
    case campaignName = "campaign_name"
    case adGroupName = "ad_group_name"
    case aaFlowInTime = "aa_flow_in_time"
    case aaFlowInTimeShare = "aa_flow_in_time_share"
    case conversionRate = "conversion_rate"
  }
}

/// A row's spend and return. Money is in the report's currency; `roas` is net revenue ÷ spend,
/// payback compares proceeds (after Apple's commission) with spend. Figures "at day N" count
/// only install days at least N days old, with those days' spend. A money figure that would
/// sum an amount of a currency without a rate is absent (the report lists it in `unconverted`),
/// and so is every ratio built on it: never a 0 that reads as free installs.
public struct AppleAdsSpendFigures: Codable, Sendable, Hashable {
  /// Spend by currency, in its units, as Apple reported it.
  public var byCurrency: [String: Money]
  /// Spend in the report's currency.
  public var total: Money?
  public var impressions: Int64
  public var taps: Int64
  /// Apple's tap-through installs: what AdServices attribution can match.
  public var appleInstalls: Int64
  /// Apple's installs counting view-through ones.
  public var appleTotalInstalls: Int64
  /// `apple_installs` − Tollgate's attributed installs: installs Apple counted that never
  /// reached Tollgate with a token (not opened yet, ATT-independent losses, other devices).
  public var installGap: Int64
  /// Spend ÷ Apple's tap-through installs.
  public var cpi: Money?
  /// Spend ÷ Tollgate's attributed installs.
  public var cpiAttributed: Money?
  /// Of Tollgate's attributed installs (cohort figures to date).
  public var trials: Int64
  public var payingUsers: Int64
  public var netRevenue: Money?
  public var proceeds: Money?
  public var netRevenueDay7: Money?
  public var netRevenueDay30: Money?
  public var proceedsDay7: Money?
  public var proceedsDay30: Money?
  public var roas: Double?
  public var roasDay7: Double?
  public var roasDay30: Double?
  /// The first cohort age (days) at which proceeds reached spend; nil: not yet.
  public var paybackDay: Int64?
  /// Proceeds per attributed install by cohort age (install days that reached it): the curve
  /// the console draws against `cpi_attributed`.
  public var curve: [CurvePoint]

  /// One age of the payback curve.
  public struct CurvePoint: Codable, Sendable, Hashable {
    public var age: Int64
    public var proceedsPerInstall: Money?
    /// Spend per attributed install of the same install days.
    public var spendPerInstall: Money?

    enum CodingKeys: String, CodingKey {
      case age
      case proceedsPerInstall = "proceeds_per_install"
      case spendPerInstall = "spend_per_install"
    }
  }

  enum CodingKeys: String, CodingKey {
    case total, impressions, taps, cpi, trials, proceeds, roas, curve
    case byCurrency = "by_currency"
    case appleInstalls = "apple_installs"
    case appleTotalInstalls = "apple_total_installs"
    case installGap = "install_gap"
    case cpiAttributed = "cpi_attributed"
    case payingUsers = "paying_users"
    case netRevenue = "net_revenue"
    case netRevenueDay7 = "net_revenue_day_7"
    case netRevenueDay30 = "net_revenue_day_30"
    case proceedsDay7 = "proceeds_day_7"
    case proceedsDay30 = "proceeds_day_30"
    case roasDay7 = "roas_day_7"
    case roasDay30 = "roas_day_30"
    case paybackDay = "payback_day"
  }
}

/// `GET /v1/admin/stats/apple-ads` and `tollgate report apple-ads`.
public struct AppleAdsReport: Codable, Sendable, Hashable {
  public var from: String
  public var to: String
  public var by: String
  public var reportingCurrency: String?
  /// The currency spend, revenue and ROAS are in (the reporting currency, else the only one).
  public var currency: String?
  /// The rates used to convert into `currency`.
  public var rates: [String: Double]
  /// Currencies without a rate: their amounts are left out of converted figures.
  public var unconverted: [String]
  public var rows: [AppleAdsRow]

  enum CodingKeys: String, CodingKey {
    case from, to, by, rows, currency, rates, unconverted
    case reportingCurrency = "reporting_currency"
  }

  /// Joins Tollgate's counts, Apple's spend and the cohort rollup's money into rows.
  public static func build(
    days: ClosedRange<Int64>, by grouping: AppleAdsGrouping, counts: [AppleAdsCounts],
    spend figures: [SpendFigure] = [],
    names: [AdsEntityName] = [], cohorts: [CohortTotals] = [], config: CompiledConfig?, today: Int64 = .max
  ) -> AppleAdsReport {
    let reporting = config?.reporting
    let ledger = SpendLedger(figures, by: grouping)
    let currencies = Set(
      figures.map(\.currency).filter { !$0.isEmpty } + cohorts.map(\.currency).filter { !$0.isEmpty })
    let currency = reporting?.currency ?? (currencies.count == 1 ? currencies.first : nil)
    let converter = CurrencyConverter(currency: currency, reporting: reporting)
    func rate(_ code: String) -> Double? {
      guard let currency else { return nil }
      return code == currency ? 1 : reporting?.rates[code]
    }
    let nameOf = Dictionary(names.map { ("\($0.level.rawValue)/\($0.id)", $0.name) }) { _, latest in latest }
    // Cohort rows per report row: segment "c", "c/ag" or "c/ag/kw" of install days.
    var cohortRows: [SpendLedger.Key: [CohortTotals]] = [:]
    for row in cohorts {
      let ids = row.segment.split(separator: "/").compactMap { Int64($0) }
      guard !ids.isEmpty, ids.count == row.segment.split(separator: "/").count else { continue }
      let key = SpendLedger.Key(
        campaignId: ids[0], adGroupId: ids.count > 1 ? ids[1] : nil, keywordId: ids.count > 2 ? ids[2] : nil)
      cohortRows[key, default: []].append(row)
    }
    var rows: [SpendLedger.Key: AppleAdsRow] = [:]
    for counts in counts {
      let key = SpendLedger.Key(campaignId: counts.campaignId, adGroupId: counts.adGroupId, keywordId: counts.keywordId)
      let revenue = Dictionary(
        uniqueKeysWithValues: counts.revenue.map { ($0.key, Money(thousandths: $0.value, currency: $0.key)) })
      rows[key] = AppleAdsRow(
        campaignId: counts.campaignId, adGroupId: counts.adGroupId, keywordId: counts.keywordId,
        installs: counts.installs, aaFlowInTime: counts.flowInTime,
        aaFlowInTimeShare: counts.installs > 0 ? Double(counts.flowInTime) / Double(counts.installs) : nil,
        purchasers: counts.purchasers,
        conversionRate: counts.installs > 0 ? Double(counts.purchasers) / Double(counts.installs) : nil,
        revenue: revenue,
        reporting: reporting?.convert(gross: counts.revenue, viewers: nil, purchasers: counts.purchasers))
    }
    for key in ledger.days.keys where rows[key] == nil {
      rows[key] = AppleAdsRow(
        campaignId: key.campaignId, adGroupId: key.adGroupId, keywordId: key.keywordId, installs: 0, aaFlowInTime: 0,
        purchasers: 0, revenue: [:])
    }
    let firstRate: Decimal = reporting?.smallBusiness == true ? 0.15 : 0.30
    for (key, var row) in rows {
      row.campaignName = nameOf["campaign/\(key.campaignId)"]
      row.adGroupName = key.adGroupId.flatMap { nameOf["ad_group/\($0)"] }
      row.keyword = key.keywordId.flatMap { $0 == 0 ? nil : nameOf["keyword/\($0)"] }
      if ledger.days[key] != nil {
        row.spend = spendFigures(
          ledger: ledger, key: key, installs: row.installs, cohorts: cohortRows[key] ?? [], today: today,
          converter: converter, firstRate: firstRate)
      }
      rows[key] = row
    }
    let used = currencies.filter { $0 != currency }.sorted()
    return AppleAdsReport(
      from: PlacementReport.isoDay(days.lowerBound), to: PlacementReport.isoDay(days.upperBound), by: grouping.rawValue,
      reportingCurrency: reporting?.currency, currency: currency,
      rates: Dictionary(uniqueKeysWithValues: used.compactMap { code in rate(code).map { (code, $0) } }),
      unconverted: used.filter { rate($0) == nil }, rows: rows.keys.sorted().map { rows[$0]! })
  }

  /// Spend, Apple's counts, cohort money and their ratios for one row.
  static func spendFigures(
    ledger: SpendLedger, key: SpendLedger.Key, installs: Int64, cohorts: [CohortTotals], today: Int64,
    converter: CurrencyConverter, firstRate: Decimal
  ) -> AppleAdsSpendFigures {
    let all = ledger.totals(key)
    let spend = converter.sum(all.spend)
    /// Net and proceeds of the install days `include` accepts, up to `age`.
    func money(age: Int64, include: (Int64) -> Bool) -> (net: Decimal?, proceeds: Decimal?, installs: Int64) {
      var net: Decimal? = 0
      var late: Decimal? = 0
      var installs: Int64 = 0
      for row in cohorts where include(row.start) {
        installs += row.counters.installs
        guard row.age <= age, !row.currency.isEmpty else { continue }
        net = net.flatMap { sum in converter.units(row.counters.net, row.currency).map { sum + $0 } }
        late = late.flatMap { sum in converter.units(row.counters.netAfterFirstYear, row.currency).map { sum + $0 } }
      }
      let proceeds = net.flatMap { net in late.map { CohortReport.proceeds(net: net, late: $0, firstRate: firstRate) } }
      return (net, proceeds, installs)
    }
    let toDate = money(age: .max) { _ in true }
    var curve: [AppleAdsSpendFigures.CurvePoint] = []
    var payback: Int64?
    var atAge: [Int64: (net: Decimal?, proceeds: Decimal?, spend: Decimal?)] = [:]
    for age in CohortReport.ages {
      let matured: (Int64) -> Bool = { $0 + age <= today }
      guard ledger.days[key]?.keys.contains(where: matured) == true || cohorts.contains(where: { matured($0.start) })
      else { break }
      let figures = money(age: age, include: matured)
      let spendMatured = converter.sum(ledger.totals(key, include: matured).spend)
      atAge[age] = (figures.net, figures.proceeds, spendMatured)
      // Install days without spend (before the import's first day) say nothing of payback.
      guard spendMatured.map({ $0 > 0 }) ?? true else { continue }
      curve.append(
        .init(
          age: age, proceedsPerInstall: converter.money(figures.proceeds?.per(figures.installs)),
          spendPerInstall: converter.money(spendMatured?.per(figures.installs))))
      if payback == nil, let spendMatured, spendMatured > 0, let proceeds = figures.proceeds, proceeds >= spendMatured {
        payback = age
      }
    }
    func ratio(_ value: Decimal?, _ over: Decimal?) -> Double? {
      guard let value, let over, over > 0 else { return nil }
      return (value / over).doubleValue
    }
    return AppleAdsSpendFigures(
      byCurrency: Dictionary(
        uniqueKeysWithValues: all.spend.map { ($0.key, Money(thousandths: $0.value, currency: $0.key)) }),
      total: converter.money(spend), impressions: all.impressions, taps: all.taps, appleInstalls: all.tapInstalls,
      appleTotalInstalls: all.totalInstalls, installGap: all.tapInstalls - installs,
      cpi: converter.money(spend?.per(all.tapInstalls)), cpiAttributed: converter.money(spend?.per(installs)),
      trials: cohorts.reduce(0) { $0 + $1.counters.trials }, payingUsers: cohorts.reduce(0) { $0 + $1.counters.payers },
      netRevenue: converter.money(toDate.net), proceeds: converter.money(toDate.proceeds),
      netRevenueDay7: converter.money(atAge[7]?.net ?? nil), netRevenueDay30: converter.money(atAge[30]?.net ?? nil),
      proceedsDay7: converter.money(atAge[7]?.proceeds ?? nil),
      proceedsDay30: converter.money(atAge[30]?.proceeds ?? nil), roas: ratio(toDate.net, spend),
      roasDay7: ratio(atAge[7]?.net ?? nil, atAge[7]?.spend ?? nil),
      roasDay30: ratio(atAge[30]?.net ?? nil, atAge[30]?.spend ?? nil), paybackDay: payback, curve: curve)
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
    guard let day = StatsDay.parseISODay(text) else {
      throw DomainError(.badParameter, "\(name) is a UTC day such as 2026-11-29.")
    }
    return day
  }
}
