import Foundation
import Synchronization
import TollgateDomain
import TollgateSupport

/// PostgreSQL's raw flow views live in one partition per month (UTC), `events_pYYYYMM`: made
/// before a view of that month (or the month before it) is stored, and dropped whole once the
/// month is past the retention. Which months exist is remembered per process, so a request
/// asks the database once per month at most. Partition names and bounds are computed here
/// from dates, never taken from input.
final class EventMonths: Sendable {
  /// Months known to have their partition (or to be covered by the partition of the rows from
  /// before partitioning), as `year * 12 + month - 1`.
  private let known = Mutex<Set<Int>>([])

  private static let calendar: Calendar = {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar
  }()

  /// The month of a date.
  static func month(of date: Date) -> Int {
    let parts = calendar.dateComponents([.year, .month], from: date)
    return parts.year! * 12 + parts.month! - 1
  }

  /// When a month starts.
  static func start(of month: Int) -> Date {
    calendar.date(from: DateComponents(year: month / 12, month: month % 12 + 1, day: 1))!
  }

  /// A month's partition.
  static func table(of month: Int) -> String { String(format: "events_p%04d%02d", month / 12, month % 12 + 1) }

  /// The month of a partition name (nil: not a month's partition).
  static func month(ofTable name: String) -> Int? {
    guard name.hasPrefix("events_p"), name.count == 14, let number = Int(name.dropFirst(8)) else { return nil }
    let (year, month) = (number / 100, number % 100)
    return (1...12).contains(month) ? year * 12 + month - 1 : nil
  }

  /// Makes the partitions of the months of `dates` and of the month after each, unless known.
  /// A month that cannot have one (rows of it already sit in the default partition) keeps
  /// going there: nothing is lost, and the retention deletes those row by row.
  func prepare(for dates: [Date], on pool: ConnectionPool) throws {
    let wanted = Set(dates.map(Self.month(of:)).flatMap { [$0, $0 + 1] })
    let missing = known.withLock { wanted.subtracting($0) }
    guard !missing.isEmpty else { return }
    try pool.with { db in
      let covered = try db.query("SELECT starts_at FROM event_months").first.map {
        Date(timeIntervalSince1970: try $0.decode("starts_at"))
      }
      for month in missing.sorted() {
        let start = Self.start(of: month)
        if covered.map({ start >= $0 }) ?? true {
          try? db.execute(
            "CREATE TABLE IF NOT EXISTS \(Self.table(of: month)) PARTITION OF events FOR VALUES FROM "
              + "(\(Int64(start.timeIntervalSince1970))) TO (\(Int64(Self.start(of: month + 1).timeIntervalSince1970)))"
          )
        }
        known.withLock { _ = $0.insert(month) }
      }
    }
  }

  /// Forgets a dropped month.
  func dropped(_ month: Int) { known.withLock { _ = $0.remove(month) } }
}
