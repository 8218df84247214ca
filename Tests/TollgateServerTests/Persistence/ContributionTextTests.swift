import Foundation
import Testing
import TollgateAPI

@testable import TollgateDomain
@testable import TollgatePersistence

/// The `changes` column of a subscription's or a profile's contribution: read back exactly as
/// written, whatever its texts hold, and the JSON rows of a database from before still read.
@Suite("Contribution text")
struct ContributionTextTests {
  /// Texts with every separator and escape the stored form uses, and some that need none.
  static let texts = [
    "", "USD", "production", "pro,monthly", "a|b", "100%", "%2C", "line\nbreak", "cr\rlf", "Ümlaut 漢字 🚀",
  ]

  static func randomRows<G: RandomNumberGenerator>(_ generator: inout G) -> [(key: SubscriptionDay, counters: [Int64])]
  {
    (0..<Int.random(in: 0...40, using: &generator)).map { _ in
      let day = SubscriptionDay(
        day: Int64.random(in: -1_000...30_000, using: &generator),
        product: texts.randomElement(using: &generator)!, currency: texts.randomElement(using: &generator)!,
        environment: texts.randomElement(using: &generator)!)
      let counters = (0..<6).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) }
      return (day, counters)
    }
  }

  @Test("rows are read back as written, separators and escapes in their texts included", arguments: [1, 2, 3])
  func roundTrip(seed: UInt64) throws {
    var generator = Seeded(state: seed)
    for _ in 0..<200 {
      let rows = Self.randomRows(&generator)
      let text = ContributionText.encode(rows)
      let read = try ContributionText.decode(text, as: SubscriptionDay.self)
      #expect(read.map(\.key) == rows.map(\.key) && read.map(\.counters) == rows.map(\.counters), "\(text)")
    }
    let ages = [
      (key: CohortAge(age: 0, currency: "", environment: ""), counters: [Int64(1), 0, 0]),
      (key: CohortAge(age: 30, currency: "EUR", environment: "production"), counters: [0, 1, -8491]),
    ]
    let read = try ContributionText.decode(ContributionText.encode(ages), as: CohortAge.self)
    #expect(read.map(\.key) == ages.map(\.key) && read.map(\.counters) == ages.map(\.counters))
  }

  @Test("rows stored as JSON before are read as the same rows")
  func storedAsJSON() throws {
    struct Legacy: Encodable {
      var `where`: SubscriptionDay
      var counters: [Int64]
    }
    var generator = Seeded(state: 7)
    for _ in 0..<50 {
      let rows = Self.randomRows(&generator)
      let json = String(
        decoding: WireCoding.encode(rows.map { Legacy(where: $0.key, counters: $0.counters) }), as: UTF8.self)
      #expect(json.hasPrefix("["))
      let read = try ContributionText.decode(json, as: SubscriptionDay.self)
      #expect(read.map(\.key) == rows.map(\.key) && read.map(\.counters) == rows.map(\.counters))
    }
  }

  @Test("an unknown form or a damaged row is an error, not a row read wrong")
  func unreadable() throws {
    for text in ["t2\n1,a,b,c|1", "t1\n1,a,b,c", "t1\n1,a,b|1", "t1\nx,a,b,c|1", "t1\n1,a,b,c|1,two", "{}"] {
      #expect(throws: StoreError.self, "\(text)") { try ContributionText.decode(text, as: SubscriptionDay.self) }
    }
    #expect(try ContributionText.decode("t1", as: SubscriptionDay.self).isEmpty)
  }
}
