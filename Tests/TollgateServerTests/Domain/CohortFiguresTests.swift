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
}
