import Foundation
import TollgateSupport

/// What happens when a restore brings a subscription another profile owns.
public enum AccessLevelSharing: String, Sendable, Hashable, CaseIterable {
  /// The restoring profile takes it; the previous owner loses the access (the default).
  case transfer
  /// Both profiles keep the access.
  case shared
  /// The first owner keeps it; the restoring profile gets nothing.
  case off
}
