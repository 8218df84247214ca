import Foundation
import TollgateAPI
import TollgateDomain
import TollgateSupport

/// A/B assignments: one variation per profile and experiment slot, stored once.
public protocol AssignmentRepository: Sendable {
  /// The stored variation of an experiment slot.
  func assignment(_ key: AssignmentKey) throws -> String?

  /// Stores `variationId` unless the slot has one; returns the slot's variation.
  func assign(_ key: AssignmentKey, variationId: String, at: Date) throws -> String

  /// A profile's stored A/B assignments.
  func assignments(appId: Int64, profileId: String) throws -> [AssignmentRow]
}
