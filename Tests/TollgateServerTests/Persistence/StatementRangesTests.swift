import Testing

@testable import TollgatePersistence

/// Multi-row statements come in a few power-of-two sizes, so each connection prepares a few
/// texts however long the batches are.
@Suite struct StatementRangesTests {
  @Test(arguments: [0, 1, 2, 63, 64, 1_000, 1_023, 10_000])
  func rangesCoverEveryRowOnceInPowerOfTwoSizes(count: Int) {
    let ranges = SQLiteStore.statementRanges(count, limit: 512)
    #expect(ranges.map(\.count).reduce(0, +) == count)
    #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    #expect(ranges.first?.lowerBound ?? 0 == 0)
    #expect(ranges.allSatisfy { $0.count <= 512 && $0.count & ($0.count - 1) == 0 })
  }

  @Test func aLimitThatIsNoPowerOfTwoRoundsDown() {
    #expect(SQLiteStore.statementRanges(3_000, limit: 2_500).map(\.count) == [2_048, 512, 256, 128, 32, 16, 8])
  }
}
