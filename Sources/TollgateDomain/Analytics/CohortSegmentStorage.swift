/// Which cohort rows are kept and how a segmentation is read back from them. Rows another
/// segmentation already holds are not written twice: every install's cohort (`none`) is the sum
/// of its `origin` rows (`import` and `live`), and an organic install's campaign, ad group and
/// keyword are all `organic`, its `source` row. An install writes 4 segmentations' rows, not 8
/// (Apple Ads installs 7): the cohort rows were the largest share of every purchase's writes.
extension CohortReport.Segment {
  /// The value this install's change is kept under in this segmentation's own rows; nil when
  /// the segmentation reads it from another's (`storedReads`).
  package func storedValue(_ install: CohortDimensions) -> String? {
    switch self {
    case .none: return nil
    case .campaign, .adGroup, .keyword: return install.campaignId == 0 ? nil : value(install)
    default: return value(install)
    }
  }

  /// One read of stored rows: a segmentation's rows (of one `value` only, when given), each
  /// relabelled as `label` when given.
  package struct StoredRead: Equatable, Sendable {
    package var segment: CohortReport.Segment
    package var value: String?
    package var label: String?

    /// The row as the segmentation asked for names it.
    package func labelled(_ row: CohortTotals) -> CohortTotals {
      guard let label else { return row }
      var row = row
      row.segment = label
      return row
    }

    /// The segment `label` or `value` this read answers for, nil when it answers for every
    /// value it reads.
    package var answers: String? { label ?? value }
  }

  /// The reads whose rows, together, are this segmentation's: every cohort of it is their sum.
  package var storedReads: [StoredRead] {
    switch self {
    case .none: return [StoredRead(segment: .origin, label: "all")]
    case .campaign, .adGroup, .keyword:
      return [StoredRead(segment: self), StoredRead(segment: .source, value: "organic")]
    default: return [StoredRead(segment: self)]
    }
  }
}
