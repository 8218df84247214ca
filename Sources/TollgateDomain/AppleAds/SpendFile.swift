import Foundation
import TollgateAPI
import TollgateSupport

/// A spend file: CSV with a header row, one row per day and entity, as exported from Apple Ads
/// (headers are matched without case, spaces or underscores: `Campaign ID` is `campaign_id`).
///
/// Columns: `day` (or `date`, YYYY-MM-DD), `campaign_id`, `campaign_name`, `ad_group_id`,
/// `ad_group_name`, `keyword_id`, `keyword` (its text), `spend`, `currency`, `installs`
/// (or `tap_installs`), and optionally `impressions`, `taps`, `total_installs`. A row with a
/// keyword id is a keyword's, with an ad group id an ad group's, else a campaign's. Required:
/// day, campaign_id, spend, currency.
public enum SpendFile {
  /// Rows beyond which a file is refused (a year of 2 700 keywords a day).
  public static let maximumRows = 1_000_000

  /// The figures and names of a file, or every problem at its line.
  public static func parse(_ data: Data) throws(DomainError) -> (figures: [SpendFigure], names: [AdsEntityName]) {
    guard let text = String(data: data, encoding: .utf8) else {
      throw DomainError(.invalidSpendFile, "The spend file is not UTF-8 text.")
    }
    let records = CSVRecords.parse(text)
    guard let header = records.first else { throw DomainError(.invalidSpendFile, "The spend file is empty.") }
    var columns: [String: Int] = [:]
    for (index, name) in header.enumerated() {
      let key = name.lowercased().filter { $0.isLetter || $0.isNumber }
      let canonical =
        ["date": "day", "keywordtext": "keyword", "tapinstalls": "installs", "localspend": "spend"][key] ?? key
      if columns[canonical] == nil { columns[canonical] = index }
    }
    var problems: [APIError.Detail] = []
    for required in ["day", "campaignid", "spend", "currency"] where columns[required] == nil {
      problems.append(
        .init(path: "line 1", message: "no \(required == "campaignid" ? "campaign_id" : required) column"))
    }
    guard problems.isEmpty else {
      throw DomainError(.invalidSpendFile, "The spend file's header is missing columns.", details: problems)
    }
    guard records.count - 1 <= maximumRows else {
      throw DomainError(.invalidSpendFile, "A spend file holds at most \(maximumRows) rows.")
    }
    var figures: [String: SpendFigure] = [:]
    var names: [AdsEntityName] = []
    for (offset, record) in records.dropFirst().enumerated() {
      let line = "line \(offset + 2)"
      if record.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
      func cell(_ name: String) -> String {
        guard let index = columns[name], index < record.count else { return "" }
        return record[index].trimmingCharacters(in: .whitespaces)
      }
      func id(_ name: String, _ label: String) -> Int64? {
        let text = cell(name)
        guard !text.isEmpty else { return 0 }
        guard let value = Int64(text), value > 0 else {
          problems.append(.init(path: line, message: "\(label) \(text) is not a positive whole number"))
          return nil
        }
        return value
      }
      func count(_ name: String) -> Int64? {
        let text = cell(name).replacingOccurrences(of: ",", with: "")
        guard !text.isEmpty else { return 0 }
        guard let value = Int64(text), value >= 0 else {
          problems.append(.init(path: line, message: "\(name) \(text) is not a count"))
          return nil
        }
        return value
      }
      guard let day = StatsDay.parseISODay(cell("day")) else {
        problems.append(.init(path: line, message: "day \(cell("day")) is not YYYY-MM-DD"))
        continue
      }
      guard let campaign = id("campaignid", "campaign_id"), let adGroup = id("adgroupid", "ad_group_id"),
        let keyword = id("keywordid", "keyword_id")
      else { continue }
      guard campaign != 0 else {
        problems.append(.init(path: line, message: "campaign_id is required"))
        continue
      }
      if keyword != 0 && adGroup == 0 {
        problems.append(.init(path: line, message: "a keyword row needs its ad_group_id"))
        continue
      }
      guard let spend = MoneyText.thousandths(cell("spend").replacingOccurrences(of: ",", with: "")), spend >= 0 else {
        problems.append(.init(path: line, message: "spend \(cell("spend")) is not an amount such as 12.34"))
        continue
      }
      let currency = cell("currency").uppercased()
      guard currency.count == 3, currency.allSatisfy({ ("A"..."Z").contains($0) }) else {
        problems.append(.init(path: line, message: "currency \(cell("currency")) is not an ISO 4217 code"))
        continue
      }
      guard let installs = count("installs"), let impressions = count("impressions"), let taps = count("taps"),
        let total = count("totalinstalls")
      else { continue }
      let level: SpendLevel = keyword != 0 ? .keyword : adGroup != 0 ? .adGroup : .campaign
      let key = "\(level.rawValue)/\(day)/\(campaign)/\(adGroup)/\(keyword)"
      if figures[key] != nil {
        problems.append(.init(path: line, message: "a second row for the same day and \(level.rawValue)"))
        continue
      }
      figures[key] = SpendFigure(
        level: level, day: day, campaignId: campaign, adGroupId: adGroup, keywordId: keyword, currency: currency,
        spend: spend, impressions: impressions, taps: taps, tapInstalls: installs,
        totalInstalls: max(total, installs))
      if !cell("campaignname").isEmpty {
        names.append(AdsEntityName(level: .campaign, id: campaign, name: cell("campaignname")))
      }
      if adGroup != 0, !cell("adgroupname").isEmpty {
        names.append(AdsEntityName(level: .adGroup, id: adGroup, name: cell("adgroupname")))
      }
      if keyword != 0, !cell("keyword").isEmpty {
        names.append(AdsEntityName(level: .keyword, id: keyword, name: cell("keyword")))
      }
      if problems.count >= 100 { break }
    }
    guard problems.isEmpty else {
      throw DomainError(
        .invalidSpendFile, "The spend file has rows that cannot be read; nothing was imported.", details: problems)
    }
    return (
      figures.values.sorted {
        ($0.day, $0.campaignId, $0.adGroupId, $0.keywordId) < ($1.day, $1.campaignId, $1.adGroupId, $1.keywordId)
      }, names
    )
  }
}

/// RFC 4180 records: commas, quoted fields with doubled quotes and line breaks inside, CRLF or LF.
enum CSVRecords {
  static func parse(_ text: String) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false
    var iterator = text.unicodeScalars.makeIterator()
    var pending = iterator.next()
    while let scalar = pending {
      pending = iterator.next()
      if quoted {
        if scalar == "\"" {
          if pending == "\"" {
            field.unicodeScalars.append("\"")
            pending = iterator.next()
          } else {
            quoted = false
          }
        } else {
          field.unicodeScalars.append(scalar)
        }
        continue
      }
      switch scalar {
      case "\"" where field.isEmpty: quoted = true
      case ",":
        record.append(field)
        field = ""
      case "\r" where pending == "\n": continue
      case "\n", "\r":
        record.append(field)
        records.append(record)
        (record, field) = ([], "")
      case "\u{FEFF}" where records.isEmpty && record.isEmpty && field.isEmpty: continue
      default: field.unicodeScalars.append(scalar)
      }
    }
    if !field.isEmpty || !record.isEmpty {
      record.append(field)
      records.append(record)
    }
    return records
  }
}
