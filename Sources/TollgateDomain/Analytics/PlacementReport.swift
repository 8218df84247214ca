import Foundation
import TollgateAPI
import TollgateSupport

/// `reporting` in the configuration: convert revenue into one currency with these rates
/// (units of `currency` per unit of each other currency). Currencies without a rate are
/// reported apart, never converted with a guess.
public struct ReportingSettings: Sendable, Hashable {
  public var currency: String
  public var rates: [String: Double]
  /// `commission: small_business`: the App Store keeps 15 % of every sale; otherwise 30 %, and
  /// 15 % of a subscription's sales after its subscriber's first paid year.
  public var smallBusiness = false

  public init(currency: String, rates: [String: Double], smallBusiness: Bool = false) {
    self.currency = currency
    self.rates = rates
    self.smallBusiness = smallBusiness
  }

  /// The rate for a currency (1 for the reporting currency itself); nil when unknown.
  func rate(_ code: String) -> Double? { code == currency ? 1 : rates[code] }

  /// Gross and refunded amounts (by currency, in milliunits) in the reporting currency, exactly;
  /// currencies without a rate are named, and the figures they would be part of are absent.
  package func convert(
    gross byCurrency: [String: Int64], refunded: [String: Int64] = [:], viewers: Int64?, purchasers: Int64
  ) -> ConvertedMoney {
    let converter = CurrencyConverter(currency: currency, reporting: self)
    let gross = converter.sum(byCurrency)
    return ConvertedMoney(
      currency: currency, gross: converter.money(gross), refunded: converter.money(converter.sum(refunded)),
      perThousandViewers: converter.money(gross.flatMap { gross in viewers.flatMap { (gross * 1000).per($0) } }),
      arppu: converter.money(gross?.per(purchasers)),
      unconverted: Set(byCurrency.keys).union(refunded.keys).filter { converter.rate($0) == nil }.sorted())
  }
}

/// Money figures of one currency, in its units (Apple's milliunits / 1000).
public struct MoneyReport: Codable, Sendable, Hashable {
  public var gross: Money
  public var refunded: Money
  public var transactions: Int64
  /// Gross revenue per 1 000 unique viewers.
  public var perThousandViewers: Money?
  /// Gross revenue per paying user.
  public var arppu: Money?

  /// One currency's milliunits as shown.
  public init(
    currency: String, gross: Int64, refunded: Int64, transactions: Int64, viewers: Int64? = nil,
    purchasers: Int64 = 0
  ) {
    self.gross = Money(thousandths: gross, currency: currency)
    self.refunded = Money(thousandths: refunded, currency: currency)
    self.transactions = transactions
    let units = Decimal(gross) / 1000
    perThousandViewers = viewers.flatMap { (units * 1000).per($0) }.map { Money($0, currency: currency) }
    arppu = units.per(purchasers).map { Money($0, currency: currency) }
  }

  enum CodingKeys: String, CodingKey {
    case gross, refunded, transactions, arppu
    case perThousandViewers = "per_1000_viewers"
  }
}

/// The revenue of a row converted into the reporting currency.
public struct ConvertedMoney: Codable, Sendable, Hashable {
  public var currency: String
  /// Absent when an amount of a currency without a rate would be part of it.
  public var gross: Money?
  public var refunded: Money?
  public var perThousandViewers: Money?
  public var arppu: Money?
  /// Currencies without a rate in the configuration.
  public var unconverted: [String]

  enum CodingKeys: String, CodingKey {
    case currency, gross, refunded, arppu, unconverted
    case perThousandViewers = "per_1000_viewers"
  }
}

/// One variation's figures over the report's range.
public struct VariationReport: Codable, Sendable, Hashable {
  public var variationId: String
  public var flowId: String
  public var uniqueViewers: Int64
  public var impressions: Int64
  public var purchasers: Int64
  /// purchasers / unique viewers; nil without viewers.
  public var conversionRate: Double?
  /// The 95 % credible interval of the conversion rate (Beta(1, 1) prior).
  public var conversionInterval: [Double]?
  /// The probability that this variation converts best (experiments with enough data).
  public var probabilityToBeBest: Double?
  public var trialsStarted: Int64
  public var trialToPaid: Int64
  public var refunds: Int64
  /// By currency.
  public var revenue: [String: MoneyReport]
  /// In the reporting currency, when one is configured.
  public var reporting: ConvertedMoney?
  /// Viewers who paid money (trials excluded) credited to this variation, whose first payment
  /// falls in the range.
  public var payingViewers: Int64
  /// What those paying viewers paid to date, net of refunds, in the revenue currency (absent
  /// when an amount of a currency without a rate would be part of it).
  public var netRevenue: Money?
  /// Net revenue per unique viewer (ARPU), in the revenue currency.
  public var revenuePerViewer: Money?
  /// Its 95 % credible interval (revenue model; experiments with enough data).
  public var revenuePerViewerInterval: [Double]?
  /// The probability that this variation earns the most per viewer (experiments with enough data).
  public var revenueProbabilityToBeBest: Double?
  /// What choosing this variation would lose per viewer against the best, on average.
  public var revenueExpectedLoss: Double?

  enum CodingKeys: String, CodingKey {
    case impressions, purchasers, refunds, revenue, reporting
    case payingViewers = "paying_viewers"
    case netRevenue = "net_revenue"
    case revenuePerViewer = "revenue_per_viewer"
    case revenuePerViewerInterval = "revenue_per_viewer_interval"
    case revenueProbabilityToBeBest = "revenue_probability_to_be_best"
    case revenueExpectedLoss = "revenue_expected_loss"
    case variationId = "variation_id"
    case flowId = "flow_id"
    case uniqueViewers = "unique_viewers"
    case conversionRate = "conversion_rate"
    case conversionInterval = "conversion_interval"
    case probabilityToBeBest = "probability_to_be_best"
    case trialsStarted = "trials_started"
    case trialToPaid = "trial_to_paid"
  }
}

/// What one metric says of an experiment.
public struct MetricVerdict: Codable, Sendable, Hashable {
  /// `ok`, `not_enough_data`, or (revenue) `no_revenue_currency` when payers paid in several
  /// currencies and no reporting currency converts them.
  public var status: String
  /// The variation most likely to be best by this metric (with `ok`).
  public var leader: String?
  /// Its probability to be best.
  public var probability: Double?
}

/// Whether an experiment's numbers say anything yet, by the configured metric and by both.
public struct ExperimentDecision: Codable, Sendable, Hashable {
  /// The configured `decision_metric`: `status` and `leader` are this metric's.
  public var metric: String
  /// `ok`, `not_enough_data` or `no_revenue_currency`.
  public var status: String
  /// The variation most likely to be best by `metric` (with `ok`).
  public var leader: String?
  /// The currency of the revenue figures (nil when there is none).
  public var currency: String?
  public var conversion: MetricVerdict
  public var revenuePerViewer: MetricVerdict
  public var minimumViewersPerVariation: Int64
  public var minimumPurchasers: Int64
  public var minimumPayersPerVariation: Int64

  enum CodingKeys: String, CodingKey {
    case metric, status, leader, currency, conversion
    case revenuePerViewer = "revenue_per_viewer"
    case minimumViewersPerVariation = "minimum_viewers_per_variation"
    case minimumPurchasers = "minimum_purchasers"
    case minimumPayersPerVariation = "minimum_payers_per_variation"
  }
}

/// One audience of a placement: its variations, and the decision when it runs an experiment.
public struct AudienceReport: Codable, Sendable, Hashable {
  public var audienceId: String
  public var audienceName: String
  public var experiment: String?
  public var decision: ExperimentDecision?
  public var variations: [VariationReport]

  enum CodingKeys: String, CodingKey {
    case experiment, decision, variations
    case audienceId = "audience_id"
    case audienceName = "audience_name"
  }
}

/// `GET /v1/admin/stats/placements/{id}` and `tollgate report placement`.
public struct PlacementReport: Codable, Sendable, Hashable {
  public var placementId: String
  public var from: String
  public var to: String
  public var reportingCurrency: String?
  public var audiences: [AudienceReport]

  enum CodingKeys: String, CodingKey {
    case from, to, audiences
    case placementId = "placement_id"
    case reportingCurrency = "reporting_currency"
  }

  /// Builds the report from rollup counters; the configuration names audiences, flows and
  /// experiments (rows of variations no longer configured are reported too).
  public static func build(
    placementId: String, days: ClosedRange<Int64>, counts: [VariationCounts], config: CompiledConfig?
  ) -> PlacementReport {
    let reporting = config?.reporting
    var audiences: [AudienceReport] = []
    for (audienceId, rows) in Dictionary(grouping: counts, by: \.audienceId).sorted(by: { $0.key < $1.key }) {
      let rows = rows.sorted { $0.variationId < $1.variationId }
      let currency = revenueCurrency(rows, reporting)
      var variations = rows.map { variation($0, reporting, revenueCurrency: currency) }
      let experiment = config?.experiment(placement: placementId, audience: audienceId)
      var decision: ExperimentDecision?
      if experiment != nil || rows.count > 1 {
        let conversion = conversionVerdict(rows, &variations)
        let revenue = revenueVerdict(rows, currency: currency, reporting, &variations)
        let metric = experiment?.metric ?? .revenuePerViewer
        let chosen = metric == .conversion ? conversion : revenue
        decision = ExperimentDecision(
          metric: metric.rawValue, status: chosen.status, leader: chosen.leader, currency: currency,
          conversion: conversion, revenuePerViewer: revenue,
          minimumViewersPerVariation: ConversionStatistics.minimumViewersPerVariation,
          minimumPurchasers: ConversionStatistics.minimumPurchasers,
          minimumPayersPerVariation: RevenueStatistics.minimumPayersPerVariation)
      }
      audiences.append(
        AudienceReport(
          audienceId: audienceId, audienceName: config?.audienceName(audienceId) ?? audienceId,
          experiment: experiment?.name, decision: decision, variations: variations))
    }
    return PlacementReport(
      placementId: placementId, from: isoDay(days.lowerBound), to: isoDay(days.upperBound),
      reportingCurrency: reporting?.currency, audiences: audiences)
  }

  /// Conversion: Beta posteriors by quadrature; needs enough viewers per variation and
  /// purchasers in all.
  static func conversionVerdict(_ rows: [VariationCounts], _ variations: inout [VariationReport]) -> MetricVerdict {
    let enough =
      rows.count > 1 && rows.allSatisfy { $0.viewers >= ConversionStatistics.minimumViewersPerVariation }
      && rows.reduce(0) { $0 + $1.purchasers } >= ConversionStatistics.minimumPurchasers
    guard enough else { return MetricVerdict(status: "not_enough_data") }
    let best = ConversionStatistics.probabilityToBeBest(rows.map { ($0.viewers, $0.purchasers) })
    for index in variations.indices { variations[index].probabilityToBeBest = best[index] }
    let top = best.indices.max { best[$0] < best[$1] }!
    return MetricVerdict(status: "ok", leader: variations[top].variationId, probability: best[top])
  }

  /// Revenue per viewer: the Monte Carlo model; needs enough viewers and paying viewers in
  /// every variation, and one currency to compare in.
  static func revenueVerdict(
    _ rows: [VariationCounts], currency: String?, _ reporting: ReportingSettings?,
    _ variations: inout [VariationReport]
  ) -> MetricVerdict {
    guard let currency else {
      let paid = rows.contains { $0.payers.values.contains { $0.payers > 0 } }
      return MetricVerdict(status: paid ? "no_revenue_currency" : "not_enough_data")
    }
    let samples = rows.map { revenueSample($0, currency: currency, reporting) }
    let enough =
      rows.count > 1
      && samples.allSatisfy {
        $0.viewers >= RevenueStatistics.minimumViewersPerVariation
          && $0.payers >= RevenueStatistics.minimumPayersPerVariation
      }
    guard enough else { return MetricVerdict(status: "not_enough_data") }
    let estimates = RevenueStatistics.compare(samples)
    for (index, estimate) in estimates.enumerated() {
      variations[index].revenuePerViewerInterval = [estimate.interval.lower, estimate.interval.upper]
      variations[index].revenueProbabilityToBeBest = estimate.probabilityToBeBest
      variations[index].revenueExpectedLoss = estimate.expectedLoss
    }
    let top = estimates.indices.max { estimates[$0].probabilityToBeBest < estimates[$1].probabilityToBeBest }!
    return MetricVerdict(
      status: "ok", leader: variations[top].variationId, probability: estimates[top].probabilityToBeBest)
  }

  /// The currency revenue is compared in: the reporting currency when one is configured, else
  /// the one currency every payer paid in (nil when they paid in several).
  static func revenueCurrency(_ rows: [VariationCounts], _ reporting: ReportingSettings?) -> String? {
    if let reporting { return reporting.currency }
    let paid = Set(rows.flatMap { $0.payers.filter { $0.value.payers > 0 }.keys })
    return paid.count <= 1 ? (paid.first ?? rows.flatMap { $0.revenue.keys }.sorted().first) : nil
  }

  /// A variation's payers as the revenue model's sample in `currency`: a currency converted
  /// with rate r shifts every log by log r; currencies without a rate are left out.
  static func revenueSample(_ counts: VariationCounts, currency: String, _ reporting: ReportingSettings?)
    -> RevenueSample
  {
    var sample = RevenueSample(viewers: counts.viewers, payers: 0, sumLog: 0, sumLogSquares: 0)
    for (code, moments) in counts.payers {
      guard let rate = code == currency ? 1 : reporting?.rate(code), rate > 0 else { continue }
      let shift = log(rate)
      let n = Double(moments.payers)
      let sumLog = Double(moments.logSum) / PayerMoments.scale
      sample.payers += moments.payers
      sample.sumLog += sumLog + n * shift
      sample.sumLogSquares += Double(moments.logSquares) / PayerMoments.scale + 2 * shift * sumLog + n * shift * shift
    }
    return sample
  }

  static func variation(_ counts: VariationCounts, _ reporting: ReportingSettings?, revenueCurrency: String?)
    -> VariationReport
  {
    let viewers = counts.viewers
    var revenue: [String: MoneyReport] = [:]
    for (currency, money) in counts.revenue {
      revenue[currency] = MoneyReport(
        currency: currency, gross: money.gross, refunded: money.refunded, transactions: money.transactions,
        viewers: viewers, purchasers: counts.purchasers)
    }
    let converted = reporting?.convert(
      gross: counts.revenue.mapValues(\.gross), refunded: counts.revenue.mapValues(\.refunded), viewers: viewers,
      purchasers: counts.purchasers)
    let interval =
      viewers > 0 ? ConversionStatistics.credibleInterval(viewers: viewers, purchasers: counts.purchasers) : nil
    let converter = CurrencyConverter(currency: revenueCurrency, reporting: reporting)
    let net = converter.sum(counts.payers.mapValues(\.net))
    return VariationReport(
      variationId: counts.variationId,
      flowId: String(counts.variationId.split(separator: ":").last ?? ""), uniqueViewers: viewers,
      impressions: counts.impressions, purchasers: counts.purchasers,
      conversionRate: viewers > 0 ? Double(counts.purchasers) / Double(viewers) : nil,
      conversionInterval: interval.map { [$0.lower, $0.upper] }, probabilityToBeBest: nil, trialsStarted: counts.trials,
      trialToPaid: counts.trialConversions, refunds: counts.refunds, revenue: revenue, reporting: converted,
      payingViewers: counts.payers.values.reduce(0) { $0 + $1.payers }, netRevenue: converter.money(net),
      revenuePerViewer: converter.money(net?.per(viewers)))
  }

  package static func isoDay(_ day: Int64) -> String {
    let date = StatsDay.civil(day)
    func padded(_ number: Int64, _ width: Int) -> String {
      let digits = String(number)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(date.year, 4))-\(padded(date.month, 2))-\(padded(date.day, 2))"
  }
}
