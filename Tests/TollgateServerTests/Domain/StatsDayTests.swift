import Foundation
import Testing

@testable import TollgateDomain
@testable import TollgateHTTP
@testable import TollgatePersistence
@testable import TollgateServer
@testable import TollgateSupport

/// Day numbers to calendar dates by arithmetic, checked against Foundation's Gregorian calendar.
@Suite("Calendar days")
struct StatsDayTests {
  static let utc: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  @Test("every day from 1600 to 2400: the date, its ISO text, its month's first and last day")
  func againstFoundation() {
    let first = StatsDay.of(year: 1600, month: 1, day: 1)
    let last = StatsDay.of(year: 2400, month: 12, day: 31)
    #expect(StatsDay.of(year: 1970, month: 1, day: 1) == 0)
    var mismatches: [Int64] = []
    for day in stride(from: first, through: last, by: 1) {
      let date = StatsDay.date(day)
      let parts = Self.utc.dateComponents([.year, .month, .day], from: date)
      let civil = StatsDay.civil(day)
      let expected = (Int64(parts.year!), Int64(parts.month!), Int64(parts.day!))
      if civil != expected || StatsDay.of(year: civil.year, month: civil.month, day: civil.day) != day {
        mismatches.append(day)
      }
      // Sampled (Foundation's side is slow): the text and the month's bounds.
      guard day % 97 == 0 else { continue }
      let iso = date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!).year().month().day())
      let month = Self.utc.dateInterval(of: .month, for: date)!
      if PlacementReport.isoDay(day) != iso
        || SubscriptionReport.periodStart(day, .month) != StatsDay.of(month.start)
        || SubscriptionReport.periodEnd(day, .month) != StatsDay.of(month.end) - 1
      {
        mismatches.append(day)
      }
    }
    #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
  }
}
