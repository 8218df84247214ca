import Foundation
import TollgateAPI
import TollgateSupport

/// An app's configuration document after validation: ready to resolve placements.
public struct CompiledConfig: Sendable {
  /// A flow (paywall).
  package struct Flow: Sendable {
    package let id: String
    package let name: String
    package let products: [String]
    /// Remote config by locale as written in the document.
    package let remoteConfigs: [String: JSONValue]
    /// The paywall document, validated, as the flow serves it.
    package var paywall: JSONValue? = nil
  }

  /// A named rule.
  package struct Audience: Sendable {
    package let id: String
    package let name: String
    package var rule: Rule
    /// The rule reads `attribution.*`: its flows are attribution-targeted.
    package var targetsAttribution = false
  }

  /// One weighted arm of an experiment.
  package struct Variation: Sendable {
    package let id: String
    package let flowId: String
    package let weight: Int
  }

  /// What a target serves when its audience matches.
  package enum Choice: Sendable {
    case flow(Variation)
    case experiment(name: String, variations: [Variation], metric: DecisionMetric)
  }

  /// An audience and what it gets.
  package struct Target: Sendable {
    package let audienceId: String
    package let choice: Choice
  }

  /// A placement: ordered targets, then the default flow.
  package struct Placement: Sendable {
    package let id: String
    package let targets: [Target]
    package let defaultVariation: Variation
  }

  /// Where a variation id points, so events can be attributed.
  package struct VariationOwner: Sendable, Hashable {
    package let placementId: String
    package let audienceId: String
    package let flowId: String
  }

  /// The audience id reported for a placement's default flow.
  package static let defaultAudienceId = "default"
  /// Its display name.
  package static let defaultAudienceName = "All Users"

  /// The revision this document was applied as.
  public package(set) var revision: Int64
  /// `settings.allow_test_attribution`: apply developer-mode Apple Ads attribution.
  package var allowTestAttribution = false
  /// `app_store`: what Apple-signed data must name; nil until configured (purchases are refused).
  public package(set) var appStore: AppStoreSettings?
  /// `access_levels`: what each product unlocks.
  public package(set) var accessLevels: [AccessLevelDefinition] = []
  /// `reporting`: one currency for revenue figures, with the operator's rates.
  public package(set) var reporting: ReportingSettings?
  /// `apple_ads_api`: the Campaign Management API identifiers spend is imported with.
  public package(set) var appleAdsAPI: AppleAdsAPISettings?
  /// `webhooks`: where events about purchases and attribution go.
  public package(set) var webhooks: [WebhookConfig] = []
  /// `settings.access_level_sharing`.
  public package(set) var accessLevelSharing = AccessLevelSharing.transfer
  /// The profile attributes the audiences read: what the profile cache keeps per profile.
  package var targeting = TargetingSchema(reading: [], accessLevels: [])
  /// The saved lists the audiences name, with the path of each one's first use: they must
  /// exist when the document is applied, and cannot be deleted while it is current.
  public package(set) var savedLists: [String: String] = [:]
  package let flows: [String: Flow]
  package private(set) var audiences: [String: Audience]
  package let placements: [String: Placement]
  package let variationOwners: [String: VariationOwner]

  /// The same configuration with its rules reading these saved lists' values.
  package func binding(_ lists: [String: SavedList]) -> CompiledConfig {
    guard !savedLists.isEmpty else { return self }
    var bound = self
    bound.audiences = audiences.mapValues { audience in
      var copy = audience
      copy.rule = audience.rule.binding(lists)
      return copy
    }
    return bound
  }

  /// The ids of the audiences whose rules name a saved list.
  package func audiences(using listId: String) -> [String] {
    audiences.values.filter { $0.rule.listIds.contains(listId) }.map(\.id).sorted()
  }

  /// The experiment of a placement's audience (its name and decision metric), when its target runs one.
  func experiment(placement: String, audience: String) -> (name: String, metric: DecisionMetric)? {
    for target in placements[placement]?.targets ?? [] where target.audienceId == audience {
      if case .experiment(let name, _, let metric) = target.choice { return (name, metric) }
    }
    return nil
  }

  /// The display name of an audience id (`All Users` for the default).
  func audienceName(_ id: String) -> String {
    id == Self.defaultAudienceId ? Self.defaultAudienceName : audiences[id]?.name ?? id
  }

  /// The ids of every placement, sorted.
  public var placementIds: [String] { placements.keys.sorted() }

  /// The variation id format: `placement:audience:flow`. Ids cannot contain `:`, so it
  /// is unambiguous and stable across revisions as long as the three ids are.
  static func variationId(placement: String, audience: String, flow: String) -> String {
    "\(placement):\(audience):\(flow)"
  }
}

/// What an experiment's decision ranks variations by (`decision_metric` in the configuration).
public enum DecisionMetric: String, Sendable, CaseIterable {
  /// Net revenue per unique viewer: what the variation earns, trials that never pay earning nothing.
  case revenuePerViewer = "revenue_per_viewer"
  /// Purchasers (a trial start counts) per unique viewer.
  case conversion
}
