import Foundation
import TollgateDomain
import TollgateSupport

/// Where resolving a placement reads a profile: its targeting view for the app's schema.
package protocol TargetingViewRepository: Sendable {
  /// The view, or nil when there is no such profile.
  func targetingView(appId: Int64, id: String, schema: TargetingSchema) throws -> TargetingView?
}

/// Without a profile cache: the view of the full record, read on every request.
package struct RecordTargetingViews: TargetingViewRepository {
  let profiles: any ProfileRepository

  /// Every stored field.
  package init(profiles: any ProfileRepository) {
    self.profiles = profiles
  }

  package func targetingView(appId: Int64, id: String, schema: TargetingSchema) throws -> TargetingView? {
    try profiles.profile(appId: appId, id: id).map { TargetingView(profile: $0, schema: schema) }
  }
}
