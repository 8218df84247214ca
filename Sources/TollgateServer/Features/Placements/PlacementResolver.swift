import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// Decides which flow a profile sees in a placement: the first target whose audience rule
/// matches wins; an experiment picks its variation by the profile's bucket unless the
/// profile was assigned one before; the placement's default flow is the last resort.
struct PlacementResolver {
  let assignments: any AssignmentRepository
  let logger: Logger

  /// The answer's bytes, pre-rendered per variation and locale in the config's cache entry.
  func resolveRendered(
    _ placement: CompiledConfig.Placement, entry: ConfigCache.Entry, appId: Int64, profile: TargetingView,
    locale: String?, now: Date
  ) throws -> Data {
    let config = entry.config
    let placementId = placement.id
    let (audience, abTestName, variation) = try decide(
      placement, config: config, appId: appId, profile: profile, now: now)
    return entry.answer(variationId: variation.id, abTestName: abTestName, locale: locale) {
      PlacementAnswers.response(
        config: config, placementId: placementId, audience: audience, abTestName: abTestName, variation: variation,
        locale: locale)
    }
  }

  /// The audience, A/B test and variation this profile gets in the placement.
  private func decide(
    _ placement: CompiledConfig.Placement, config: CompiledConfig, appId: Int64, profile: TargetingView, now: Date
  ) throws -> (audience: (id: String, name: String), abTestName: String?, variation: CompiledConfig.Variation) {
    let placementId = placement.id
    let attributes = profile.attributes(config.targeting, now: now)
    for target in placement.targets {
      guard let audience = config.audiences[target.audienceId] else { continue }
      guard let matched = audience.rule.evaluate(attributes) else {
        logger.warn(
          "rule of audience \(audience.id) could not be evaluated for profile \(profile.profileId) "
            + "(operand of the wrong type); treated as no match")
        continue
      }
      guard matched else { continue }
      switch target.choice {
      case .flow(let variation):
        return ((audience.id, audience.name), nil, variation)
      case .experiment(let name, let variations, _):
        let key = AssignmentKey(
          appId: appId, profileId: profile.profileId, placementId: placementId, audienceId: audience.id)
        return ((audience.id, audience.name), name, try choose(key: key, among: variations, now: now))
      }
    }
    return (
      (CompiledConfig.defaultAudienceId, CompiledConfig.defaultAudienceName), nil, placement.defaultVariation
    )
  }

  /// The stored variation when it is still part of the experiment; otherwise the
  /// profile's bucket decides, and the choice is stored so weight edits never move it.
  private func choose(key: AssignmentKey, among variations: [CompiledConfig.Variation], now: Date)
    throws -> CompiledConfig.Variation
  {
    if let stored = try assignments.assignment(key), let variation = variations.first(where: { $0.id == stored }) {
      return variation
    }
    let bucket = Bucketing.bucket(placementId: key.placementId, audienceId: key.audienceId, profileId: key.profileId)
    let picked = variations[Bucketing.variationIndex(bucket: bucket, weights: variations.map(\.weight))]
    let kept = try assignments.assign(key, variationId: picked.id, at: now)
    return variations.first { $0.id == kept } ?? picked
  }
}
