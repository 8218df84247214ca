import Foundation
import TollgateAPI

/// An app's configuration document after validation: ready to resolve placements.
public struct CompiledConfig: Sendable {
  /// A flow (paywall).
  struct Flow: Sendable {
    let id: String
    let name: String
    let products: [String]
    /// Remote config by locale as written in the document.
    let remoteConfigs: [String: JSONValue]
    /// The paywall document, validated, as the flow serves it.
    var paywall: JSONValue? = nil
  }

  /// A named rule.
  struct Audience: Sendable {
    let id: String
    let name: String
    var rule: Rule
    /// The rule reads `attribution.*`: its flows are attribution-targeted.
    var targetsAttribution = false
  }

  /// One weighted arm of an experiment.
  struct Variation: Sendable {
    let id: String
    let flowId: String
    let weight: Int
  }

  /// What a target serves when its audience matches.
  enum Choice: Sendable {
    case flow(Variation)
    case experiment(name: String, variations: [Variation], metric: DecisionMetric)
  }

  /// An audience and what it gets.
  struct Target: Sendable {
    let audienceId: String
    let choice: Choice
  }

  /// A placement: ordered targets, then the default flow.
  struct Placement: Sendable {
    let id: String
    let targets: [Target]
    let defaultVariation: Variation
  }

  /// Where a variation id points, so events can be attributed.
  struct VariationOwner: Sendable, Hashable {
    let placementId: String
    let audienceId: String
    let flowId: String
  }

  /// The audience id reported for a placement's default flow.
  static let defaultAudienceId = "default"
  /// Its display name.
  static let defaultAudienceName = "All Users"

  /// The revision this document was applied as.
  public internal(set) var revision: Int64
  /// `settings.allow_test_attribution`: apply developer-mode Apple Ads attribution.
  var allowTestAttribution = false
  /// `app_store`: what Apple-signed data must name; nil until configured (purchases are refused).
  public internal(set) var appStore: AppStoreSettings?
  /// `access_levels`: what each product unlocks.
  public internal(set) var accessLevels: [AccessLevelDefinition] = []
  /// `reporting`: one currency for revenue figures, with the operator's rates.
  public internal(set) var reporting: ReportingSettings?
  /// `apple_ads_api`: the Campaign Management API identifiers spend is imported with.
  public internal(set) var appleAdsAPI: AppleAdsAPISettings?
  /// `webhooks`: where events about purchases and attribution go.
  public internal(set) var webhooks: [WebhookConfig] = []
  /// `settings.access_level_sharing`.
  public internal(set) var accessLevelSharing = AccessLevelSharing.transfer
  /// The profile attributes the audiences read: what the profile cache keeps per profile.
  var targeting = TargetingSchema(reading: [], accessLevels: [])
  /// The saved lists the audiences name, with the path of each one's first use: they must
  /// exist when the document is applied, and cannot be deleted while it is current.
  public internal(set) var savedLists: [String: String] = [:]
  let flows: [String: Flow]
  private(set) var audiences: [String: Audience]
  let placements: [String: Placement]
  let variationOwners: [String: VariationOwner]

  /// The same configuration with its rules reading these saved lists' values.
  func binding(_ lists: [String: SavedList]) -> CompiledConfig {
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
  func audiences(using listId: String) -> [String] {
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
