import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain

/// Cohort figures from the rollup's rows: the top segments and `others`, and money that cannot
/// all be converted.
@Suite("Cohort report")
struct CohortFiguresTests {
  static let day: Int64 = 20_000

  static func row(_ segment: String, age: Int64, currency: String = "", _ counters: (inout CohortCounters) -> Void)
    -> CohortTotals
  {
    var values = CohortCounters()
    counters(&values)
    return CohortTotals(start: day, segment: segment, currency: currency, age: age, counters: values)
  }

  static func build(_ rows: [CohortTotals], rates: [String: Double] = [:]) -> CohortReport {
    CohortReport.build(
      installDays: day...day, by: .day, segment: .country, environment: "Production", rows: rows,
      reporting: ReportingSettings(currency: "USD", rates: rates), today: day + 10)
  }

  @Test("others is every install less the kept segments, figure by figure")
  func othersIsTheRest() throws {
    // Three installs: FRA paid 9.99 on day 1, DEU and ITA did not pay (FRA is kept).
    let every = [
      Self.row("all", age: 0) { $0.installs = 3 },
      Self.row("all", age: 1, currency: "USD") {
        ($0.payers, $0.active, $0.net) = (1, 1, 9_990)
      },
    ]
    let kept = [
      Self.row("FRA", age: 0) { $0.installs = 1 },
      Self.row("FRA", age: 1, currency: "USD") { ($0.payers, $0.active, $0.net) = (1, 1, 9_990) },
    ]
    let report = Self.build(CohortReport.keeping(kept, of: every))
    #expect(report.cohorts.map(\.segment) == ["FRA", "others"])
    let others = try #require(report.cohorts.last)
    #expect(others.others == true && others.installs == 2)
    #expect(others.ages.allSatisfy { $0.payingShare == 0 && $0.activeSubscriptions == 0 })
    #expect(others.ages.allSatisfy { $0.netPerInstall == Money(0, currency: "USD") })
    #expect(report.cohorts[0].ages[1].netPerInstall == Money(Decimal(string: "9.99")!, currency: "USD"))
  }

  @Test("money in a currency without a rate leaves out only the figures it is in")
  func unconvertedCurrency() throws {
    // The kept segment was paid in a currency the settings give no rate for; the rest in USD.
    let every = [
      Self.row("all", age: 0) { $0.installs = 3 },
      Self.row("all", age: 1, currency: "USD") { $0.net = 10_000 },
      Self.row("all", age: 1, currency: "XYZ") { $0.net = 5_000 },
    ]
    let kept = [
      Self.row("FRA", age: 0) { $0.installs = 1 },
      Self.row("FRA", age: 1, currency: "XYZ") { $0.net = 5_000 },
    ]
    let report = Self.build(CohortReport.keeping(kept, of: every))
    #expect(report.unconverted == ["XYZ"])
    let fra = try #require(report.cohorts.first)
    #expect(fra.ages[0].netPerInstall == Money(0, currency: "USD"))
    #expect(fra.ages[1].netPerInstall == nil, "no rate for XYZ")
    // The others' XYZ rows (every install's, less the kept segment's) net to nothing.
    let others = try #require(report.cohorts.last)
    #expect(others.ages[1].netPerInstall == Money(5, currency: "USD"))
    // A refund in the same currency nets the money out: nothing is left to convert.
    let refunded = Self.build([
      Self.row("FRA", age: 0) { $0.installs = 1 },
      Self.row("FRA", age: 1, currency: "XYZ") { $0.net = 5_000 },
      Self.row("FRA", age: 3, currency: "XYZ") { $0.net = -5_000 },
    ])
    let zero = Money(0, currency: "USD")
    #expect(refunded.cohorts[0].ages.map(\.age) == [0, 1, 3, 7])
    #expect(refunded.cohorts[0].ages.map(\.netPerInstall) == [zero, nil, zero, zero])
  }

  @Test("figures made in integers equal the decimal ones, digit for digit", arguments: [1, 2, 3])
  func integersAgreeWithDecimals(seed: UInt64) throws {
    var random = Seeded(state: seed)
    let codes = ["USD", "EUR", "JPY", "KWD", "GBP", "XYZ"]
    for _ in 0..<400 {
      // Rates with 0–6 decimals; GBP sometimes has none; XYZ never has one.
      var rates: [String: Double] = [:]
      for code in ["EUR", "JPY", "KWD", "GBP"] where code != "GBP" || Bool.random(using: &random) {
        let decimals = Int.random(in: 0...6, using: &random)
        let whole = Double(Int.random(in: 1...3_000_000, using: &random))
        rates[code] = Double("\(whole / pow(10, Double(decimals)))")!
      }
      let reporting = ReportingSettings(
        currency: ["USD", "JPY", "KWD"].randomElement(using: &random)!, rates: rates,
        smallBusiness: Bool.random(using: &random))
      let converter = CurrencyConverter(currency: reporting.currency, reporting: reporting)
      func amounts() -> [String: Int64] {
        var amounts: [String: Int64] = [:]
        for code in codes where Int.random(in: 0..<3, using: &random) == 0 {
          // Sometimes zero (a refund netted out), sometimes negative (refunds in others).
          amounts[code] =
            Bool.random(using: &random) ? 0 : Int64.random(in: -2_000_000_000_000...9_000_000_000_000, using: &random)
        }
        return amounts
      }
      let (nets, lates) = (amounts(), amounts())
      let installs = Int64.random(in: 1...2_000_000, using: &random)
      let firstPercent: Int64 = reporting.smallBusiness ? 15 : 30
      let exact = try #require(
        CohortReport.exactPerInstall(
          net: nets, late: lates, installs: installs, firstPercent: firstPercent, converter))
      let decimal = CohortReport.decimalPerInstall(
        net: nets, late: lates, installs: installs, firstPercent: firstPercent, converter)
      #expect(exact == decimal, "\(nets) \(lates) / \(installs) at \(reporting.rates) in \(reporting.currency)")
      // The same text in JSON: the digits a client reads.
      #expect(WireCoding.encode([exact.net, exact.proceeds]) == WireCoding.encode([decimal.net, decimal.proceeds]))
    }
  }

  @Test("sums too large for integers are made in decimals")
  func tooLargeForIntegers() throws {
    let reporting = ReportingSettings(currency: "USD", rates: ["EUR": 1.123456789012345])
    let converter = CurrencyConverter(currency: "USD", reporting: reporting)
    #expect(converter.exactSum(["EUR": 1]) == .tooLarge, "15 decimals do not fit the integers")
    let nets: [String: Int64] = ["EUR": 2_000]
    #expect(
      CohortReport.exactPerInstall(net: nets, late: [:], installs: 2, firstPercent: 30, converter) == nil)
    let report = Self.build(
      [Self.row("FRA", age: 0) { $0.installs = 2 }, Self.row("FRA", age: 1, currency: "EUR") { $0.net = 2_000 }],
      rates: ["EUR": 1.123456789012345])
    #expect(report.cohorts[0].ages[1].netPerInstall == Money(Decimal(string: "1.12")!, currency: "USD"))
  }

  @Test("every install is read exactly once in every segmentation, under its own value, from the rows kept")
  func storedReadsCountEachInstallOnce() {
    var installs: [CohortDimensions] = []
    for campaign: Int64 in [0, 103] {
      for imported: Bool? in [nil, true] {
        var install = CohortDimensions(
          installDay: Self.day, country: "FRA", campaignId: campaign, adGroupId: campaign == 0 ? 0 : 7,
          keywordId: campaign == 0 ? 0 : 9)
        install.imported = imported
        install.variationId = imported == true ? "" : "onboarding:a:b"
        installs.append(install)
      }
    }
    var kept = 0
    for install in installs {
      kept += CohortReport.Segment.allCases.filter { $0.storedValue(install) != nil }.count
      for segment in CohortReport.Segment.allCases {
        // The segment values the install is read under: one per stored read that finds its row.
        let read = segment.storedReads.compactMap { read -> String? in
          guard let value = read.segment.storedValue(install), read.value.map({ $0 == value }) ?? true else {
            return nil
          }
          return read.answers ?? value
        }
        #expect(read == [segment.value(install)], "\(segment) of \(install)")
      }
    }
    // Organic installs keep 4 segmentations of 8, Apple Ads installs 7.
    #expect(kept == 4 + 4 + 7 + 7)
  }
}
