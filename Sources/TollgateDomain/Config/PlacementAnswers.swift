import Foundation
import TollgateAPI
import TollgateSupport

/// What a placement answers, from the compiled configuration alone: a variation's flow with the
/// remote configuration of the best locale, the default-audience answer (pre-rendered once per
/// revision by the config cache) and the fallback file.
package enum PlacementAnswers {
  /// The default-audience answer of a placement; needs no profile.
  package static func defaultResponse(config: CompiledConfig, placement: CompiledConfig.Placement, locale: String?)
    -> PlacementFlowResponse
  {
    response(
      config: config, placementId: placement.id,
      audience: (CompiledConfig.defaultAudienceId, CompiledConfig.defaultAudienceName),
      abTestName: nil, variation: placement.defaultVariation, locale: locale)
  }

  package static func response(
    config: CompiledConfig, placementId: String, audience: (id: String, name: String),
    abTestName: String?, variation: CompiledConfig.Variation, locale: String?
  ) -> PlacementFlowResponse {
    // Validation guarantees every variation's flow exists.
    let flow = config.flows[variation.flowId]!
    let remoteConfig = LocaleMatcher.best(for: locale, among: flow.remoteConfigs.keys).map {
      RemoteConfigPayload(locale: $0, data: flow.remoteConfigs[$0]!)
    }
    return PlacementFlowResponse(
      placement: PlacementInfo(
        id: placementId, revision: config.revision, audienceId: audience.id,
        audienceName: audience.name, abTestName: abTestName),
      flow: FlowPayload(
        id: flow.id, name: flow.name, variationId: variation.id, products: flow.products,
        remoteConfig: remoteConfig, paywall: flow.paywall))
  }

  /// The fallback file: every placement's default flow with all its locales.
  package static func fallbackFile(config: CompiledConfig, generatedAt: Date) -> FallbackFile {
    FallbackFile(
      formatVersion: FallbackFile.currentFormatVersion, revision: config.revision,
      generatedAt: Timestamp.string(generatedAt),
      placements: config.placementIds.map { id in
        let placement = config.placements[id]!
        let flow = config.flows[placement.defaultVariation.flowId]!
        return FallbackFile.Placement(
          id: id, audienceName: CompiledConfig.defaultAudienceName,
          flow: .init(
            id: flow.id, name: flow.name, variationId: placement.defaultVariation.id,
            products: flow.products, remoteConfigs: flow.remoteConfigs, paywall: flow.paywall))
      })
  }
}
