import Foundation
import TollgateSupport

/// One age of a cohort: figures summed from install through this many days, per install.
public struct CohortAgeFigures: Codable, Sendable, Hashable {
  public var age: Int64
  /// Installs that paid money (trials excluded) by this age / installs.
  public var payingShare: Double
  /// Free trials started by this age.
  public var trials: Int64
  /// Paid subscriptions of the cohort active at this age.
  public var activeSubscriptions: Int64
  /// Net revenue (paid − refunded) by this age / installs: LTV to this age (absent without a
  /// report currency, or when an amount it would sum has no rate).
  public var netPerInstall: Money?
  /// The same after the App Store's commission.
  public var proceedsPerInstall: Money?

  enum CodingKeys: String, CodingKey {
    case age, trials
    case payingShare = "paying_share"
    case activeSubscriptions = "active_subscriptions"
    case netPerInstall = "net_per_install"
    case proceedsPerInstall = "proceeds_per_install"
  }
}

/// One install cohort (a period of install days) of one segment.
public struct Cohort: Codable, Sendable, Hashable {
  public var start: String
  public var end: String
  /// The segment's value (`organic`/`apple_ads`, a campaign id, a variation id, a country …;
  /// `all` without segmentation).
  public var segment: String
  public var installs: Int64
  /// Only the ages every install of the cohort has reached.
  public var ages: [CohortAgeFigures]
  /// True on the cohorts of `others`, the segments past `top` summed; absent otherwise. A
  /// segment may itself be called `others` (a storefront is whatever text the SDK sent).
  public var others: Bool?
}

/// `GET /v1/admin/stats/cohorts` and `tollgate report cohorts`.
public struct CohortReport: Codable, Sendable, Hashable {
  public var from: String
  public var to: String
  public var by: String
  public var segment: String
  public var environment: String
  public var currency: String?
  public var unconverted: [String]
  public var cohorts: [Cohort]
  /// With `top`: how many segments the `others` cohorts sum (absent without `top`).
  public var segmentsInOthers: Int?

  /// The segment the segments past `top` are summed into.
  public static let others = "others"

  enum CodingKeys: String, CodingKey {
    case from, to, by, segment, environment, currency, unconverted, cohorts
    case segmentsInOthers = "segments_in_others"
  }

  /// The ages reported, in days since install.
  public static let ages: [Int64] = [0, 1, 3, 7, 14, 30, 60, 90, 180, 365]

  /// The reported age a change at `age` days first counts in (nil: after the last one). Every
  /// reported figure sums the changes up to an age, so the rollup keeps these buckets only.
  package static func bucket(_ age: Int64) -> Int64? { ages.first { $0 >= age } }

  /// Where a report over `installDays` grouped `by` reads its rows: whole periods from the
  /// rollup of that grouping (`periods`, their first days), and the days of periods cut by the
  /// range's edges from the daily one (`days`).
  package static func readPlan(installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping)
    -> (periods: ClosedRange<Int64>?, days: [ClosedRange<Int64>])
  {
    guard grouping != .day else { return (installDays, []) }
    let first =
      SubscriptionReport.periodStart(installDays.lowerBound, grouping) == installDays.lowerBound
      ? installDays.lowerBound : SubscriptionReport.periodEnd(installDays.lowerBound, grouping) + 1
    let lastEnd =
      SubscriptionReport.periodEnd(installDays.upperBound, grouping) == installDays.upperBound
      ? installDays.upperBound : SubscriptionReport.periodStart(installDays.upperBound, grouping) - 1
    guard first <= lastEnd else { return (nil, [installDays]) }
    var days: [ClosedRange<Int64>] = []
    if first > installDays.lowerBound { days.append(installDays.lowerBound...(first - 1)) }
    if lastEnd < installDays.upperBound { days.append((lastEnd + 1)...installDays.upperBound) }
    return (first...SubscriptionReport.periodStart(lastEnd, grouping), days)
  }

  /// What cohorts are split by.
  public enum Segment: String, Sendable, CaseIterable {
    case none, source, campaign
    case adGroup = "ad_group"
    case keyword, variation, country
    /// Imported customers apart from those who installed live (`import`, `live`).
    case origin

    /// The cohort of this segmentation an install with these dimensions belongs to.
    package func value(_ install: CohortDimensions) -> String {
      switch self {
      case .none: return "all"
      case .source: return install.campaignId == 0 ? "organic" : "apple_ads"
      case .campaign: return install.campaignId == 0 ? "organic" : String(install.campaignId)
      case .adGroup: return install.campaignId == 0 ? "organic" : "\(install.campaignId)/\(install.adGroupId)"
      case .keyword:
        return install.campaignId == 0
          ? "organic" : "\(install.campaignId)/\(install.adGroupId)/\(install.keywordId)"
      case .variation: return install.variationId.isEmpty ? "no paywall shown" : install.variationId
      case .country: return install.country.isEmpty ? "unknown" : install.country
      case .origin: return install.imported == true ? "import" : "live"
      }
    }
  }

  /// Install days `from`…`to`; without `from`, the 90 days up to `to` (default today).
  public static func installDays(from: String?, to: String?, now: Date) throws(DomainError) -> ClosedRange<Int64> {
    let end = try ReportRange.days(from: nil, to: to, now: now).upperBound
    return try ReportRange.days(from: from ?? PlacementReport.isoDay(end - 89), to: to, now: now)
  }

  /// What a cohort request names.
  public struct Request: Sendable {
    public var grouping: SubscriptionReport.Grouping
    public var segment: Segment
    /// `Production` or `Sandbox`.
    public var environment: String
    /// Only imported (`import`) or only live customers; nil: both.
    public var origin: String?
    /// Only the `top` segments with the most installs in the range, the rest summed into one
    /// `others` segment; nil: every segment.
    public var top: Int?

    /// The segmentation whose stored rows answer: an origin filter reads the `origin` rows.
    public var storedSegment: Segment { origin == nil ? segment : .origin }

    /// The stored rows kept to the origin asked for, labelled as the segment asked for.
    public func select(_ rows: [CohortTotals]) -> [CohortTotals] {
      guard let origin else { return rows }
      return rows.filter { $0.segment == origin }.map { row in
        var row = row
        row.segment = "all"
        return row
      }
    }

    /// With `top`, the segments kept apart — the `top` with the most installs in the range, ties
    /// by name — when there are more (the rest are summed into `others`, every figure being a
    /// sum); nil when every segment is shown.
    public func kept(_ installs: [String: Int64]) -> Set<String>? {
      guard let top, origin == nil, installs.count > top else { return nil }
      return Set(installs.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(top).map(\.key))
    }
  }

  /// The grouping, segmentation, environment, origin and top a request names (`by`, default
  /// `week`; `segment`, default `none`; `environment`, default `production`; `origin`, `import`
  /// or `live`, only without another segment; `top`, 1–1000 segments); `bad_parameter`
  /// otherwise.
  public static func request(_ parameters: [String: String]) throws(DomainError) -> Request {
    guard let grouping = SubscriptionReport.Grouping(rawValue: parameters["by"] ?? "week") else {
      throw DomainError(.badParameter, "by is day, week or month.")
    }
    guard let segment = Segment(rawValue: parameters["segment"] ?? "none") else {
      throw DomainError(
        .badParameter, "segment is one of \(Segment.allCases.map(\.rawValue).joined(separator: ", ")).")
    }
    let environment: String
    switch parameters["environment"] ?? "production" {
    case "production": environment = "Production"
    case "sandbox": environment = "Sandbox"
    default: throw DomainError(.badParameter, "environment is production or sandbox.")
    }
    let origin = parameters["origin"]
    if let origin {
      guard ["import", "live"].contains(origin) else {
        throw DomainError(.badParameter, "origin is import (customers a profile import brought) or live.")
      }
      // Cohorts are stored once per segmentation, not per pair of them.
      guard segment == .none else {
        throw DomainError(
          .badParameter,
          "origin filters cohorts without a segment; segment=origin shows imported and live side by side.")
      }
    }
    var top: Int?
    if let text = parameters["top"] {
      guard let number = Int(text), (1...1_000).contains(number) else {
        throw DomainError(.badParameter, "top is a number of segments from 1 to 1000.")
      }
      top = number
    }
    return Request(grouping: grouping, segment: segment, environment: environment, origin: origin, top: top)
  }

  /// The `kept` segments' rows, and `others` as `every` install's rows (segment `none`) less
  /// theirs: every segmentation splits the same installs, and every figure is a sum, so the
  /// segments past `top` need not be read one by one (a keyword segmentation has thousands).
  public static func keeping(_ kept: [CohortTotals], of every: [CohortTotals]) -> [CohortTotals] {
    func others(_ row: CohortTotals, _ counters: CohortCounters) -> CohortTotals {
      CohortTotals(
        start: row.start, segment: Self.others, currency: row.currency, age: row.age, counters: counters,
        inOthers: true)
    }
    return kept + every.map { others($0, $0.counters) } + kept.map { others($0, -$0.counters) }
  }

  /// Builds the report; `today` decides which ages a cohort has reached.
  public static func build(
    installDays: ClosedRange<Int64>, by grouping: SubscriptionReport.Grouping, segment: Segment,
    environment: String, rows: [CohortTotals], reporting: ReportingSettings?, today: Int64
  ) -> CohortReport {
    let currencies = Set(rows.map(\.currency).filter { !$0.isEmpty })
    let currency = reporting?.currency ?? (currencies.count <= 1 ? currencies.first : nil)
    let converter = CurrencyConverter(currency: currency, reporting: reporting)
    let firstPercent: Int64 = reporting?.smallBusiness == true ? 15 : 30
    struct Key: Hashable {
      var start: Int64
      var segment: String
      var others: Bool
    }
    var groups: [Key: [CohortTotals]] = [:]
    for row in rows {
      let start = max(installDays.lowerBound, SubscriptionReport.periodStart(row.start, grouping))
      groups[Key(start: start, segment: row.segment, others: row.inOthers), default: []].append(row)
    }
    var cohorts: [Cohort] = []
    let order = { (key: Key) in (key.start, key.segment, key.others ? 1 : 0) }
    for (key, members) in groups.sorted(by: { order($0.key) < order($1.key) }) {
      let end = min(SubscriptionReport.periodEnd(key.start, grouping), installDays.upperBound)
      let installs = members.reduce(0) { $0 + $1.counters.installs }
      guard installs > 0 else { continue }
      var figures: [CohortAgeFigures] = []
      // Running sums as the ages go up; money in milliunits per currency, converted once an
      // age, so a currency without a rate leaves a figure out only when its amounts do not net
      // to zero (`others` is a difference: a kept segment's money is added, then taken away).
      let ordered = members.sorted { $0.age < $1.age }
      var next = ordered.startIndex
      var counts = CohortCounters()
      var nets: [String: Int64] = [:]
      var lates: [String: Int64] = [:]
      for age in reached(by: end, today: today) {
        while next < ordered.endIndex, ordered[next].age <= age {
          let row = ordered[next]
          counts += row.counters
          if !row.currency.isEmpty {
            nets[row.currency, default: 0] += row.counters.net
            lates[row.currency, default: 0] += row.counters.netAfterFirstYear
          }
          next += 1
        }
        let money =
          exactPerInstall(net: nets, late: lates, installs: installs, firstPercent: firstPercent, converter)
          ?? decimalPerInstall(net: nets, late: lates, installs: installs, firstPercent: firstPercent, converter)
        figures.append(
          CohortAgeFigures(
            age: age, payingShare: Double(counts.payers) / Double(installs), trials: counts.trials,
            activeSubscriptions: counts.active, netPerInstall: money.net, proceedsPerInstall: money.proceeds))
      }
      cohorts.append(
        Cohort(
          start: PlacementReport.isoDay(key.start), end: PlacementReport.isoDay(end), segment: key.segment,
          installs: installs, ages: figures, others: key.others ? true : nil))
    }
    return CohortReport(
      from: PlacementReport.isoDay(installDays.lowerBound), to: PlacementReport.isoDay(installDays.upperBound),
      by: grouping.rawValue, segment: segment.rawValue, environment: environment, currency: currency,
      unconverted: currencies.filter { converter.rate($0) == nil }.sorted(), cohorts: cohorts)
  }

  /// A cohort age's money per install: net, and proceeds (nil when net is).
  struct PerInstall: Equatable {
    var net: Money?
    var proceeds: Money?
  }

  /// The figures in integers (`CurrencyConverter.exactSum`), the same as `decimalPerInstall`
  /// gives: a cohort table makes thousands, and decimal division is what made it slow. Nil when
  /// the integers would overflow.
  static func exactPerInstall(
    net nets: [String: Int64], late lates: [String: Int64], installs: Int64, firstPercent: Int64,
    _ converter: CurrencyConverter
  ) -> PerInstall? {
    let net = converter.exactSum(nets)
    let late = converter.exactSum(lates)
    guard net != .tooLarge, late != .tooLarge else { return nil }
    guard case .amount(let netAmount) = net else { return PerInstall() }
    guard let netPerInstall = converter.money(netAmount, per: Int128(installs)) else { return nil }
    guard case .amount(let lateAmount) = late else { return PerInstall(net: netPerInstall) }
    // `proceeds` in hundredths: net × (100 − first) + late × (first − 15).
    let (kept, overflowed) = netAmount.multipliedReportingOverflow(by: Int128(100 - firstPercent))
    let (keptLate, overflowedAgain) = lateAmount.multipliedReportingOverflow(by: Int128(firstPercent - 15))
    let (hundredths, overflowedOnceMore) = kept.addingReportingOverflow(keptLate)
    guard !overflowed, !overflowedAgain, !overflowedOnceMore,
      let proceeds = converter.money(hundredths, per: Int128(installs) * 100)
    else { return nil }
    return PerInstall(net: netPerInstall, proceeds: proceeds)
  }

  /// The figures in decimals, for rates or sums too large for `exactPerInstall`.
  static func decimalPerInstall(
    net nets: [String: Int64], late lates: [String: Int64], installs: Int64, firstPercent: Int64,
    _ converter: CurrencyConverter
  ) -> PerInstall {
    let net = converter.sum(nets)
    let late = converter.sum(lates)
    let firstRate = Decimal(firstPercent) / 100
    return PerInstall(
      net: converter.money(net?.per(installs)),
      proceeds: converter.money(
        net.flatMap { net in late.map { proceeds(net: net, late: $0, firstRate: firstRate) } }?.per(installs)))
  }

  /// What the developer keeps of `net`: Apple's commission is `firstRate` (30 % or 15 %) on
  /// money in a subscriber's first paid year, 15 % on `late`, the money after it.
  static func proceeds(net: Decimal, late: Decimal, firstRate: Decimal) -> Decimal {
    (net - late) * (1 - firstRate) + late * 0.85
  }

  /// The reported ages every install of a cohort ending on `end` has reached by `today`.
  static func reached(by end: Int64, today: Int64) -> [Int64] { ages.filter { end + $0 <= today } }
}

/// Which cohort rows are kept and how a segmentation is read back from them. Rows another
/// segmentation already holds are not written twice: every install's cohort (`none`) is the sum
/// of its `origin` rows (`import` and `live`), and an organic install's campaign, ad group and
/// keyword are all `organic`, its `source` row. An install writes 4 segmentations' rows, not 8
/// (Apple Ads installs 7): the cohort rows were the largest share of every purchase's writes.
extension CohortReport.Segment {
  /// The value this install's change is kept under in this segmentation's own rows; nil when
  /// the segmentation reads it from another's (`storedReads`).
  package func storedValue(_ install: CohortDimensions) -> String? {
    switch self {
    case .none: return nil
    case .campaign, .adGroup, .keyword: return install.campaignId == 0 ? nil : value(install)
    default: return value(install)
    }
  }

  /// One read of stored rows: a segmentation's rows (of one `value` only, when given), each
  /// relabelled as `label` when given.
  package struct StoredRead: Equatable, Sendable {
    package var segment: CohortReport.Segment
    package var value: String?
    package var label: String?

    /// The row as the segmentation asked for names it.
    package func labelled(_ row: CohortTotals) -> CohortTotals {
      guard let label else { return row }
      var row = row
      row.segment = label
      return row
    }

    /// The segment `label` or `value` this read answers for, nil when it answers for every
    /// value it reads.
    package var answers: String? { label ?? value }
  }

  /// The reads whose rows, together, are this segmentation's: every cohort of it is their sum.
  package var storedReads: [StoredRead] {
    switch self {
    case .none: return [StoredRead(segment: .origin, label: "all")]
    case .campaign, .adGroup, .keyword:
      return [StoredRead(segment: self), StoredRead(segment: .source, value: "organic")]
    default: return [StoredRead(segment: self)]
    }
  }
}
