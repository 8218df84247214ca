import Foundation
import TollgateServer

/// Reports as text: the tables and CSV `tollgate report` prints, and the demo too.
public enum ReportTables {
  public static func appleAdsRows(_ report: AppleAdsReport) -> [[String]] {
    var rows = [
      [
        "campaign", "ad group", "keyword", "installs", "AA flow in time", "share", "purchasers", "conversion",
        "revenue",
      ]
    ]
    for row in report.rows {
      rows.append([
        String(row.campaignId), row.adGroupId.map(String.init) ?? "",
        row.keywordId.map { $0 == 0 ? "(search match)" : String($0) } ?? "", String(row.installs),
        String(row.aaFlowInTime), percent(row.aaFlowInTimeShare), String(row.purchasers), percent(row.conversionRate),
        money(row.revenue, row.reporting),
      ])
    }
    return rows
  }

  public static func appleAdsTable(_ report: AppleAdsReport) -> String {
    grid(appleAdsRows(report), title: "Apple Ads by \(report.by), installs \(report.from) … \(report.to)")
  }

  public static func json<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
  }

  public static func rows(_ report: PlacementReport) -> [[String]] {
    var rows = [
      [
        "audience", "variation", "viewers", "impressions", "purchasers", "conversion", "95% interval", "P(best)",
        "trials", "trial→paid", "refunds", "revenue", "per 1000 viewers", "ARPPU",
      ]
    ]
    for audience in report.audiences {
      for variation in audience.variations {
        rows.append([
          audience.audienceName, variation.flowId, String(variation.uniqueViewers), String(variation.impressions),
          String(variation.purchasers), percent(variation.conversionRate),
          variation.conversionInterval.map { "\(percent($0[0])) – \(percent($0[1]))" } ?? "",
          variation.probabilityToBeBest.map { percent($0) }
            ?? (audience.decision?.status == "not_enough_data" ? "not enough data" : ""),
          String(variation.trialsStarted), String(variation.trialToPaid), String(variation.refunds),
          money(variation.revenue.mapValues(\.gross), variation.reporting),
          variation.reporting?.perThousandViewers.map(amount)
            ?? variation.revenue.sorted { $0.key < $1.key }.compactMap { key, value in
              value.perThousandViewers.map { "\(key) \(amount($0))" }
            }.joined(separator: "; "),
          variation.reporting?.arppu.map(amount)
            ?? variation.revenue.sorted { $0.key < $1.key }.compactMap { key, value in
              value.arppu.map { "\(key) \(amount($0))" }
            }.joined(separator: "; "),
        ])
      }
    }
    return rows
  }

  public static func table(_ report: PlacementReport) -> String {
    var title = "Placement \(report.placementId), \(report.from) … \(report.to)"
    if let currency = report.reportingCurrency { title += " (revenue in \(currency))" }
    var text = grid(rows(report), title: title)
    for audience in report.audiences where audience.experiment != nil || audience.decision != nil {
      let name = audience.experiment.map { "experiment \"\($0)\"" } ?? "audience \(audience.audienceName)"
      switch audience.decision?.status {
      case "ok"?: text += "\n\(name): leader \(audience.decision?.leader ?? "")"
      default:
        text +=
          "\n\(name): not enough data (each variation needs \(ConversionStatistics.minimumViewersPerVariation) viewers, the experiment \(ConversionStatistics.minimumPurchasers) purchasers)"
      }
    }
    return text
  }

  public static func csv(_ report: PlacementReport) -> String {
    let currencies = Set(report.audiences.flatMap { $0.variations.flatMap { $0.revenue.keys } }).sorted()
    var lines = [
      ([
        "audience_id", "variation_id", "unique_viewers", "impressions", "purchasers", "conversion_rate", "interval_low",
        "interval_high", "probability_to_be_best", "trials_started", "trial_to_paid", "refunds",
      ]
        + currencies.map { "gross_\($0)" } + (report.reportingCurrency.map { ["gross_reporting_\($0)"] } ?? []))
        .joined(separator: ",")
    ]
    for audience in report.audiences {
      for variation in audience.variations {
        var fields = [
          audience.audienceId, variation.variationId, String(variation.uniqueViewers), String(variation.impressions),
          String(variation.purchasers), variation.conversionRate.map { String($0) } ?? "",
          variation.conversionInterval.map { String($0[0]) } ?? "",
          variation.conversionInterval.map { String($0[1]) } ?? "",
          variation.probabilityToBeBest.map { String($0) } ?? "", String(variation.trialsStarted),
          String(variation.trialToPaid), String(variation.refunds),
        ]
        fields += currencies.map { variation.revenue[$0].map { String($0.gross) } ?? "0" }
        if report.reportingCurrency != nil { fields.append(variation.reporting.map { String($0.gross) } ?? "") }
        lines.append(fields.map(csvField).joined(separator: ","))
      }
    }
    return lines.joined(separator: "\n")
  }

  public static func csvField(_ text: String) -> String {
    text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
      ? "\"\(text.replacingOccurrences(of: "\"", with: "\"\""))\"" : text
  }

  static func grid(_ rows: [[String]], title: String) -> String {
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

  static func amount(_ value: Double) -> String { String(format: "%.2f", value) }

  static func money(_ byCurrency: [String: Double], _ converted: ConvertedMoney?) -> String {
    if let converted {
      let extra =
        converted.unconverted.isEmpty ? "" : " (+ \(converted.unconverted.joined(separator: ", ")) unconverted)"
      return "\(converted.currency) \(amount(converted.gross))\(extra)"
    }
    return byCurrency.sorted { $0.key < $1.key }.map { "\($0.key) \(amount($0.value))" }.joined(separator: "; ")
  }
}
