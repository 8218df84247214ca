import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// One configuration revision in the history.
public struct ConfigRevisionRecord: Sendable, Hashable {
  /// The revision.
  public var revision: Int64
  /// When it was applied.
  public var appliedAt: Date
  /// Who applied it: a key id, or `cli`.
  public var appliedBy: String?
  /// What changed against the revision before it.
  public var summary: String?
}

/// A configuration document as applied.
public struct ConfigRecord: Sendable, Hashable {
  /// The revision it created.
  public var revision: Int64
  /// The document's bytes, as imported.
  public var document: Data
  /// When it was applied.
  public var appliedAt: Date
}
