import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// Configuration documents: the current revision and the history of every applied one.
public protocol ConfigRepository: Sendable {
  /// The configuration history, newest first.
  func configHistory(appId: Int64, limit: Int) throws -> [ConfigRevisionRecord]

  /// One applied revision's document.
  func config(appId: Int64, revision: Int64) throws -> ConfigRecord?

  /// Stores a validated document as the app's next revision, atomically; returns it.
  func applyConfig(appId: Int64, document: Data, at: Date, by: String?, summary: String?) throws -> Int64

  /// The app's current document.
  func currentConfig(appId: Int64) throws -> ConfigRecord?
}
