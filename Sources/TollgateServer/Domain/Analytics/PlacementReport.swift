import Foundation
import TollgateAPI

/// `reporting` in the configuration: convert revenue into one currency with these rates
/// (units of `currency` per unit of each other currency). Currencies without a rate are
/// reported apart, never converted with a guess.
public struct ReportingSettings: Sendable, Hashable {
  public var currency: String
  public var rates: [String: Double]

  /// The rate for a currency (1 for the reporting currency itself); nil when unknown.
  func rate(_ code: String) -> Double? { code == currency ? 1 : rates[code] }

  /// Gross and refunded amounts (by currency, in units) in the reporting currency; currencies
  /// without a rate are left out and named.
  func convert(
    gross byCurrency: [String: Double], refunded: [String: Double] = [:], viewers: Int64?, purchasers: Int64
  ) -> ConvertedMoney {
    var gross = 0.0
    var refundedTotal = 0.0
    var unconverted: [String] = []
    for (code, amount) in byCurrency.sorted(by: { $0.key < $1.key }) {
      guard let rate = rate(code) else {
        unconverted.append(code)
        continue
      }
      gross += amount * rate
      refundedTotal += (refunded[code] ?? 0) * rate
    }
    return ConvertedMoney(
      currency: currency, gross: gross, refunded: refundedTotal,
      perThousandViewers: viewers.flatMap { $0 > 0 ? gross * 1000 / Double($0) : nil },
      arppu: purchasers > 0 ? gross / Double(purchasers) : nil, unconverted: unconverted)
  }
}

/// Money figures of one currency, in its units (Apple's milliunits / 1000).
public struct MoneyReport: Codable, Sendable, Hashable {
  public var gross: Double
  public var refunded: Double
  public var transactions: Int64
  /// Gross revenue per 1 000 unique viewers.
  public var perThousandViewers: Double?
  /// Gross revenue per paying user.
  public var arppu: Double?

  enum CodingKeys: String, CodingKey {
    case gross, refunded, transactions, arppu
    case perThousandViewers = "per_1000_viewers"
  }
}

/// The revenue of a row converted into the reporting currency.
public struct ConvertedMoney: Codable, Sendable, Hashable {
  public var currency: String
  public var gross: Double
  public var refunded: Double
  public var perThousandViewers: Double?
  public var arppu: Double?
  /// Currencies without a rate in the configuration: left out of these figures.
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

  enum CodingKeys: String, CodingKey {
    case impressions, purchasers, refunds, revenue, reporting
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

/// Whether an experiment's numbers say anything yet.
public struct ExperimentDecision: Codable, Sendable, Hashable {
  /// `ok` or `not_enough_data`.
  public var status: String
  /// The variation most likely to convert best (with `ok`).
  public var leader: String?
  public var minimumViewersPerVariation: Int64
  public var minimumPurchasers: Int64

  enum CodingKeys: String, CodingKey {
    case status, leader
    case minimumViewersPerVariation = "minimum_viewers_per_variation"
    case minimumPurchasers = "minimum_purchasers"
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
      var variations = rows.sorted { $0.variationId < $1.variationId }.map { variation($0, reporting) }
      let experiment = config?.experimentName(placement: placementId, audience: audienceId)
      var decision: ExperimentDecision?
      if experiment != nil || rows.count > 1 {
        let enough =
          rows.count > 1 && rows.allSatisfy { $0.viewers >= ConversionStatistics.minimumViewersPerVariation }
          && rows.reduce(0) { $0 + $1.purchasers } >= ConversionStatistics.minimumPurchasers
        decision = ExperimentDecision(
          status: enough ? "ok" : "not_enough_data", leader: nil,
          minimumViewersPerVariation: ConversionStatistics.minimumViewersPerVariation,
          minimumPurchasers: ConversionStatistics.minimumPurchasers)
        if enough {
          let best = ConversionStatistics.probabilityToBeBest(
            rows.sorted { $0.variationId < $1.variationId }.map { ($0.viewers, $0.purchasers) })
          for index in variations.indices { variations[index].probabilityToBeBest = best[index] }
          decision?.leader = zip(variations, best).max { $0.1 < $1.1 }?.0.variationId
        }
      }
      audiences.append(
        AudienceReport(
          audienceId: audienceId, audienceName: config?.audienceName(audienceId) ?? audienceId, experiment: experiment,
          decision: decision, variations: variations))
    }
    return PlacementReport(
      placementId: placementId, from: isoDay(days.lowerBound), to: isoDay(days.upperBound),
      reportingCurrency: reporting?.currency, audiences: audiences)
  }

  static func variation(_ counts: VariationCounts, _ reporting: ReportingSettings?) -> VariationReport {
    let viewers = counts.viewers
    var revenue: [String: MoneyReport] = [:]
    for (currency, money) in counts.revenue {
      let gross = Double(money.gross) / 1000
      revenue[currency] = MoneyReport(
        gross: gross, refunded: Double(money.refunded) / 1000, transactions: money.transactions,
        perThousandViewers: viewers > 0 ? gross * 1000 / Double(viewers) : nil,
        arppu: counts.purchasers > 0 ? gross / Double(counts.purchasers) : nil)
    }
    let converted = reporting?.convert(
      gross: revenue.mapValues(\.gross), refunded: revenue.mapValues(\.refunded), viewers: viewers,
      purchasers: counts.purchasers)
    let interval =
      viewers > 0 ? ConversionStatistics.credibleInterval(viewers: viewers, purchasers: counts.purchasers) : nil
    return VariationReport(
      variationId: counts.variationId,
      flowId: String(counts.variationId.split(separator: ":").last ?? ""), uniqueViewers: viewers,
      impressions: counts.impressions, purchasers: counts.purchasers,
      conversionRate: viewers > 0 ? Double(counts.purchasers) / Double(viewers) : nil,
      conversionInterval: interval.map { [$0.lower, $0.upper] }, probabilityToBeBest: nil, trialsStarted: counts.trials,
      trialToPaid: counts.trialConversions, refunds: counts.refunds, revenue: revenue, reporting: converted)
  }

  static func isoDay(_ day: Int64) -> String {
    StatsDay.date(day).formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
  }
}
