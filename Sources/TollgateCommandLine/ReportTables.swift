import Foundation
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateServer
import TollgateSupport

/// Reports as text: the tables and CSV `tollgate report` prints, and the demo too.
public enum ReportTables {
  public static func appleAdsRows(_ report: AppleAdsReport) -> [[String]] {
    var rows = [
      [
        "campaign", "ad group", "keyword", "installs", "Apple installs", "gap", "AA flow in time", "purchasers",
        "conversion", "trials", "spend", "CPI", "net revenue", "proceeds", "ROAS", "ROAS d7", "ROAS d30", "payback",
      ]
    ]
    func named(_ id: Int64?, _ name: String?) -> String {
      guard let id else { return "" }
      return name.map { "\($0) (\(id))" } ?? String(id)
    }
    func ratio(_ value: Double?) -> String { value.map { String(format: "%.2f×", $0) } ?? "" }
    for row in report.rows {
      let spend = row.spend
      rows.append([
        named(row.campaignId, row.campaignName), named(row.adGroupId, row.adGroupName),
        row.keywordId.map { $0 == 0 ? "(search match)" : named($0, row.keyword) } ?? "", String(row.installs),
        spend.map { String($0.appleInstalls) } ?? "", spend.map { String($0.installGap) } ?? "",
        row.aaFlowInTimeShare.map { "\(row.aaFlowInTime) (\(percent($0)))" } ?? String(row.aaFlowInTime),
        String(row.purchasers), percent(row.conversionRate),
        spend.map { String($0.trials) } ?? "",
        spend.map(spendText) ?? "",
        spend?.cpi.map(amount) ?? "", spend?.netRevenue.map(amount) ?? money(row.revenue, row.reporting),
        spend?.proceeds.map(amount) ?? "", ratio(spend?.roas), ratio(spend?.roasDay7), ratio(spend?.roasDay30),
        spend.map { $0.paybackDay.map { "day \($0)" } ?? "not yet" } ?? "",
      ])
    }
    return rows
  }

  /// Spend in the report's currency, else as Apple reported it, currency by currency.
  static func spendText(_ figures: AppleAdsSpendFigures) -> String {
    if let total = figures.total { return amount(total) }
    let parts = figures.byCurrency.sorted { $0.key < $1.key }.map { "\(amount($0.value)) \($0.key)" }
    return parts.joined(separator: " + ")
  }

  public static func appleAdsTable(_ report: AppleAdsReport) -> String {
    var title = "Apple Ads by \(report.by), installs \(report.from) … \(report.to)"
    if let currency = report.currency { title += ", money in \(currency)" }
    if !report.unconverted.isEmpty { title += " (no rate for \(report.unconverted.joined(separator: ", ")))" }
    return grid(appleAdsRows(report), title: title)
  }

  public static func json<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
  }

  public static func rows(_ report: PlacementReport) -> [[String]] {
    var rows = [
      [
        "audience", "variation", "viewers", "purchasers", "conversion", "95% interval", "P(best conv.)", "payers",
        "net revenue", "per viewer", "95% interval", "P(best per viewer)", "exp. loss", "trials", "trial→paid",
        "refunds", "gross",
      ]
    ]
    for audience in report.audiences {
      let status = audience.decision.map { ($0.conversion.status, $0.revenuePerViewer.status) }
      for variation in audience.variations {
        rows.append([
          audience.audienceName, variation.flowId, String(variation.uniqueViewers), String(variation.purchasers),
          percent(variation.conversionRate),
          variation.conversionInterval.map { "\(percent($0[0])) – \(percent($0[1]))" } ?? "",
          variation.probabilityToBeBest.map { percent($0) } ?? verdict(status?.0),
          String(variation.payingViewers), variation.netRevenue.map(amount) ?? "",
          variation.revenuePerViewer.map(amount) ?? "",
          variation.revenuePerViewerInterval.map { "\(amount($0[0])) – \(amount($0[1]))" } ?? "",
          variation.revenueProbabilityToBeBest.map { percent($0) } ?? verdict(status?.1),
          variation.revenueExpectedLoss.map(amount) ?? "", String(variation.trialsStarted),
          String(variation.trialToPaid), String(variation.refunds),
          money(variation.revenue.mapValues(\.gross), variation.reporting),
        ])
      }
    }
    return rows
  }

  public static func subscriptionRows(_ report: SubscriptionReport) -> [[String]] {
    var rows = [
      [
        "period", "active", "trials", "new trials", "trial→paid", "new paid", "renewals", "expirations", "churn",
        "billing retry", "grace", "refunds", "gross", "refunded", "net", "proceeds", "MRR",
      ]
    ]
    for period in report.periods {
      let counts: [String] = [
        period.start == period.end ? period.start : "\(period.start) … \(period.end)",
        String(period.activeSubscriptions), String(period.activeTrials), String(period.newTrials),
        String(period.trialConversions), String(period.newPaidSubscriptions), String(period.renewals),
        String(period.expirations), percent(period.churnRate), String(period.billingRetries),
        String(period.gracePeriods), String(period.refunds),
      ]
      let amounts: [String] = [period.gross, period.refunded, period.net, period.proceeds, period.mrr].map {
        $0?.text ?? ""
      }
      rows.append(counts + amounts)
    }
    return rows
  }

  public static func subscriptionTable(_ report: SubscriptionReport) -> String {
    var title = "Subscriptions (\(report.environment)), \(report.from) … \(report.to), by \(report.by)"
    if let currency = report.currency { title += " (money in \(currency))" }
    var text = grid(subscriptionRows(report), title: title)
    if !report.unconverted.isEmpty {
      text += "\nleft out of the money (no rate): \(report.unconverted.joined(separator: ", "))"
    }
    return text
  }

  /// One row per cohort and reached age.
  public static func cohortRows(_ report: CohortReport) -> [[String]] {
    var rows = [
      ["cohort", "segment", "installs", "age", "paying", "trials", "active", "net / install", "proceeds / install"]
    ]
    for cohort in report.cohorts {
      // The sum past `--top` is told apart from a segment that is itself called `others`.
      let segment =
        cohort.others == true ? "others (\(report.segmentsInOthers ?? 0) segments)" : cohort.segment
      for figures in cohort.ages {
        rows.append([
          cohort.start == cohort.end ? cohort.start : "\(cohort.start) … \(cohort.end)", segment,
          String(cohort.installs), String(figures.age), percent(figures.payingShare), String(figures.trials),
          String(figures.activeSubscriptions), figures.netPerInstall.map(amount) ?? "",
          figures.proceedsPerInstall.map(amount) ?? "",
        ])
      }
    }
    return rows
  }

  public static func cohortTable(_ report: CohortReport) -> String {
    var title =
      "Install cohorts (\(report.environment) money), \(report.from) … \(report.to), by \(report.by), segment \(report.segment)"
    if let currency = report.currency { title += " (money in \(currency))" }
    return grid(cohortRows(report), title: title)
  }

  private static func verdict(_ status: String?) -> String {
    switch status {
    case "not_enough_data"?: return "not enough data"
    case "no_revenue_currency"?: return "several currencies"
    default: return ""
    }
  }

  public static func table(_ report: PlacementReport) -> String {
    var title = "Placement \(report.placementId), \(report.from) … \(report.to)"
    if let currency = report.reportingCurrency { title += " (revenue in \(currency))" }
    var text = grid(rows(report), title: title)
    for audience in report.audiences where audience.experiment != nil || audience.decision != nil {
      guard let decision = audience.decision else { continue }
      let name = audience.experiment.map { "experiment \"\($0)\"" } ?? "audience \(audience.audienceName)"
      let metric = decision.metric == "conversion" ? "conversion" : "revenue per viewer"
      let chosen = decision.metric == "conversion" ? decision.conversion : decision.revenuePerViewer
      switch decision.status {
      case "ok":
        let leader = decision.leader.map { String($0.split(separator: ":").last ?? "") } ?? ""
        text += "\n\(name), decided by \(metric): \(leader) leads, \(percent(chosen.probability)) likely best"
      case "no_revenue_currency":
        text +=
          "\n\(name), decided by \(metric): payers paid in several currencies; set reporting.currency and rates to compare"
      default:
        text +=
          decision.metric == "conversion"
          ? "\n\(name), decided by conversion: not enough data (each variation needs \(decision.minimumViewersPerVariation) viewers, the experiment \(decision.minimumPurchasers) purchasers)"
          : "\n\(name), decided by revenue per viewer: not enough data (each variation needs \(decision.minimumViewersPerVariation) viewers and \(decision.minimumPayersPerVariation) paying viewers)"
      }
    }
    return text
  }

  public static func csv(_ report: PlacementReport) -> String {
    let currencies = Set(report.audiences.flatMap { $0.variations.flatMap { $0.revenue.keys } }).sorted()
    // Typed one step at a time: as one expression it took the type checker seconds.
    var header: [String] = [
      "audience_id", "variation_id", "unique_viewers", "impressions", "purchasers", "conversion_rate", "interval_low",
      "interval_high", "probability_to_be_best", "trials_started", "trial_to_paid", "refunds",
    ]
    header += currencies.map { "gross_\($0)" }
    if let reporting = report.reportingCurrency { header.append("gross_reporting_\(reporting)") }
    var lines = [header.joined(separator: ",")]
    for audience in report.audiences {
      for variation in audience.variations {
        var fields: [String] = [
          audience.audienceId, variation.variationId, String(variation.uniqueViewers), String(variation.impressions),
          String(variation.purchasers), variation.conversionRate.map { String($0) } ?? "",
          variation.conversionInterval.map { String($0[0]) } ?? "",
          variation.conversionInterval.map { String($0[1]) } ?? "",
          variation.probabilityToBeBest.map { String($0) } ?? "", String(variation.trialsStarted),
          String(variation.trialToPaid), String(variation.refunds),
        ]
        fields += currencies.map { variation.revenue[$0].map { $0.gross.text } ?? "0" }
        if report.reportingCurrency != nil { fields.append(variation.reporting?.gross?.text ?? "") }
        lines.append(fields.map(csvField).joined(separator: ","))
      }
    }
    return lines.joined(separator: "\n")
  }

  public static func csvField(_ text: String) -> String {
    text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
      ? "\"\(text.replacingOccurrences(of: "\"", with: "\"\""))\"" : text
  }

  /// Rows (the first is the header) in aligned columns under a title.
  public static func grid(_ rows: [[String]], title: String) -> String {
    let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    let render = { (row: [String]) in
      zip(row, widths).map { cell, width in cell.padding(toLength: width, withPad: " ", startingAt: 0) }
        .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
    return
      ([title, render(rows[0]), String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))]
      + rows.dropFirst().map(render)).joined(separator: "\n")
  }

  static func percent(_ value: Double?) -> String {
    guard let value else { return "" }
    return String(format: "%.1f%%", value * 100)
  }

  /// A model's estimate (an interval's bound, an expected loss): two digits.
  static func amount(_ value: Double) -> String { String(format: "%.2f", value) }

  /// Money with its currency's digits.
  static func amount(_ value: Money) -> String { value.text }

  /// The converted total when there is one, else each currency's amount.
  static func money(_ byCurrency: [String: Money], _ converted: ConvertedMoney?) -> String {
    if let converted, let gross = converted.gross {
      return "\(converted.currency) \(amount(gross))"
    }
    let each = byCurrency.sorted { $0.key < $1.key }.map { "\($0.key) \(amount($0.value))" }.joined(separator: "; ")
    guard let converted, !converted.unconverted.isEmpty else { return each }
    return each + " (no \(converted.currency) rate for \(converted.unconverted.joined(separator: ", ")))"
  }
}
